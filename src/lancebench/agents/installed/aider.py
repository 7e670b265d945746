"""``-a aider``: Aider (PyPI ``aider-chat``, pinned) run once on the instruction with
``--message-file``, answering yes to its questions, talking to the model gateway as an
OpenAI-compatible server (chat completions, no streaming).

Aider keeps its histories outside the repository (so they never enter the patch), does not
commit, lint or run tests by itself, and has no repository map unless ``map_tokens`` is given.
Its ``--llm-history-file`` (every request and answer) becomes the trajectory: per model call, the
newest user message (the instruction, or Aider's own feedback such as "I added these files")
as a ``user`` step and the answer as an ``agent`` step whose metrics are the gateway's record of
that call.

Options (``--ao``): ``version`` (another aider-chat version), ``edit_format`` (``diff``, the
default, ``whole``, ``udiff``...), ``map_tokens`` (0 by default), ``max_output_tokens`` (a bound
on each answer, sent as ``max_tokens`` through Aider's model settings ``aider/extra_params``; by
default none: a local model may otherwise answer until the trial's time is up, and an answer cut
off by the deadline is never recorded), ``extra_args`` (a string of further Aider flags).
"""

from __future__ import annotations

import shlex

from lancebench.agents.base import AgentContext
from lancebench.agents.installed.base import WORK, InstalledAgent, Run, call_metrics, quoted
from lancebench.agents.installed.install import INSIDE, Package
from lancebench.agents.trajectory import Trajectory, TrajectoryBuilder
from lancebench.llm.client import resolve_model

HISTORY = "llm-history.txt"


class AiderAgent(InstalledAgent):
    """Aider; see the module docstring."""

    name = "aider"
    package = Package("pypi", "aider-chat", "0.86.2")
    # its virtual environment's interpreter is a link to the host's /usr/bin/python3.X: a
    # container runs it when its image has the same Python there (Debian's, as the mini images)
    probe = f"{INSIDE}/bin/python -c 'import aider'"
    probe_hint = ("Aider's environment is made with the host's /usr/bin/python3, which the image must have at the "
                  "same path and version on --backend docker (docs/agents.md); or use --backend local")

    def command(self, ctx: AgentContext, run: Run) -> tuple[str, dict[str, str]]:
        model = "openai/" + resolve_model(self.model, self.api_base).litellm_model.split("/", 1)[-1]
        args = [f"{INSIDE}/bin/python", "-m", "aider", "--model", model,
                "--openai-api-base", f"{run.base_url}/v1", "--message-file", run.instruction,
                "--edit-format", str(self.options.get("edit_format", "diff")),
                "--map-tokens", str(int(self.options.get("map_tokens", 0))),
                "--llm-history-file", f"{run.logs_inside}/{HISTORY}",
                "--chat-history-file", f"{run.logs_inside}/chat-history.md",
                "--input-history-file", f"{WORK}/aider-input-history",
                "--yes-always", "--no-stream", "--no-pretty", "--no-fancy-input", "--no-auto-commits",
                "--no-dirty-commits", "--no-gitignore", "--no-auto-lint", "--no-auto-test", "--no-check-update",
                "--no-show-release-notes", "--analytics-disable", "--no-detect-urls", "--no-show-model-warnings",
                "--no-suggest-shell-commands", "--no-restore-chat-history",
                "--timeout", str(int(run.timeout_sec))]
        extra = shlex.split(str(self.options.get("extra_args", "")))
        env = {"OPENAI_API_KEY": run.key, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "PYTHONUNBUFFERED": "1"}
        if "max_output_tokens" not in self.options:
            return quoted(*args, *extra), env
        settings = f"{WORK}/aider-model-settings.yml"  # applies to every model (Aider's own rule)
        bound = int(self.options["max_output_tokens"])
        yaml = f"- name: aider/extra_params\n  extra_params:\n    max_tokens: {bound}\n"
        return f"printf %s {shlex.quote(yaml)} > {settings} && " + quoted(
            *args, "--model-settings-file", settings, *extra), env

    def trajectory(self, ctx: AgentContext, run: Run, calls: list[dict]) -> Trajectory:
        path = run.logs / HISTORY
        text = path.read_text(errors="replace") if path.is_file() else ""
        builder = TrajectoryBuilder("aider", self.package.version, self.model)
        for n, (request, answer) in enumerate(parse_llm_history(text)):
            builder.user(request)
            builder.agent_step(answer, metrics=call_metrics(calls, n))
        return builder.finish(extra={"usage_source": "lancebench model gateway", "gateway_calls": len(calls)})


def _strip_role(lines: list[str]) -> tuple[str, str]:
    role = lines[0].split(" ", 1)[0] if lines else ""
    return role, "\n".join(line[len(role) + 1:] if line.startswith(role) else line for line in lines)


def _new_messages(block: list[str], earlier: list[str]) -> list[str]:
    """The messages of one request after its last assistant message (what is new in this turn),
    minus those the previous turn also ended with (Aider's reminder, repeated every turn)."""
    messages = [_strip_role(m.strip("\n").splitlines()) for m in "\n".join(block).split("-------\n")]
    last = max((i for i, (role, _) in enumerate(messages) if role == "ASSISTANT"), default=-1)
    return [text for role, text in messages[last + 1:] if role and text not in earlier]


def parse_llm_history(text: str) -> list[tuple[str, str]]:
    """Aider's ``--llm-history-file`` as ``[(what is new in the request, answer)]``, one pair per
    model call. The file alternates ``TO LLM <time>`` blocks (messages separated by ``-------``
    lines, each line prefixed by the role) and ``LLM RESPONSE <time>`` blocks (lines prefixed
    ``ASSISTANT``); the format is Aider's ``io.log_llm_history``. The new part of a request is
    its messages after the last assistant one, without those the previous request ended with."""
    pairs: list[tuple[str, str]] = []
    request: list[str] = []
    earlier: list[str] = []
    block: list[str] = []
    kind = None
    for line in [*text.splitlines(), "TO LLM end"]:
        head = line.split(" ", 2)
        is_to = line.startswith("TO LLM ") and len(head) == 3
        is_resp = line.startswith("LLM RESPONSE ") and len(head) == 3
        if not (is_to or is_resp):
            block.append(line)
            continue
        if kind == "to":
            new = _new_messages(block, earlier)
            request, earlier = new, [*new, *earlier]
        elif kind == "resp":
            pairs.append(("\n\n".join(request), _strip_role(block)[1]))
        kind, block = ("to" if is_to else "resp"), []
    return pairs
