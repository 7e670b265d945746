"""Whose fault is a judge's failure to read a patch: the provider's, or the patch's?

A rubric or taste judge's prompt holds the judged patch. A provider refuses a request for what it
holds (:class:`~lancebench.errors.ModelRefused`: a content filter, a moderation flag) and a model
refuses a prompt longer than its context window; either way the judge leaves no score, and a
resolved trial without its taste score is left out of the tasteful solve rate (``quality_missing``)
instead of counting as not tasteful. An agent whose patch trips the filter (a comment, a data
file) or outgrows the window would so dodge a low score (attack pass round 4). So:

- a refusal gets a control, the judge's first prompt without the patch (:func:`blame_refusal`):
  accepted -> the patch caused it, :data:`PATCH_REFUSED`; refused too -> the provider is at fault,
  ``model-error`` as before (no score, never 0);
- :data:`BY_PATCH` names the failures the judged patch causes (``context``, :data:`PATCH_REFUSED`):
  :func:`lancebench.judging.verdict.tasteful` reads them as "not tasteful", never unknown.

The same control as Senior SWE-Bench validation's (``judging.validation``, ``_Run.refused``).
"""

from __future__ import annotations

from lancebench.errors import ModelAuthError, ModelError, ModelRefused
from lancebench.judging.conversation import JudgeFailed
from lancebench.llm.client import LLMClient

PATCH_REFUSED = "refused-patch"
BY_PATCH = ("context", PATCH_REFUSED)  # judge failures the judged patch causes (failed:<why>)
LEFT_OUT = "(the patch is left out of this request: a control)"


def blame_refusal(client: LLMClient, system: str, control_prompt: str, exc: JudgeFailed) -> JudgeFailed:
    """The failure to raise for a judge conversation that failed with ``exc``: ``exc`` itself
    unless the provider refused a request for what it holds; then the control sends ``system`` and
    ``control_prompt`` (the first prompt with the patch left out, :data:`LEFT_OUT`): accepted ->
    :data:`PATCH_REFUSED` (the patch's), refused too -> ``model-error`` naming the control.
    Raises :class:`~lancebench.errors.ModelAuthError` (the job must stop)."""
    if exc.why != "model-error" or not isinstance(exc.__cause__, ModelRefused):
        return exc
    messages = [{"role": "system", "content": system}, {"role": "user", "content": control_prompt}]
    try:
        client.complete(messages, max_tokens=16)
    except ModelAuthError:
        raise
    except ModelError as again:
        return JudgeFailed("model-error", f"{exc.detail} (control: the same prompt without the patch is refused too: "
                                          f"{str(again)[:200]})", turns=exc.turns, usage=exc.usage)
    return JudgeFailed(PATCH_REFUSED, "the judge's provider refused the prompt that holds the patch, and accepts it "
                                      f"without the patch (control): {exc.detail[:300]}", turns=exc.turns,
                       usage=exc.usage)
