"""The models' lifetime around a job: a local model server is started for ``-m local[:PATH]``
(and for ``--judge-model local[:PATH]``) and stopped when the job ends (also on Ctrl-C); a
hosted model is checked once (preflight) before any sandbox is built, so bad credentials stop the
job early."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator

from lancebench.runner.job import JobOptions

MAX_LOCAL_SLOTS = 4
# tokens: an installed agent's first request alone is about 10,000 (Claude Code's system prompt and
# tool schemas, Codex's instructions); SmolLM2's own 8,192 cannot hold it (docs/agents.md)
INSTALLED_AGENT_CTX_TOKENS = 32768


@contextlib.contextmanager
def model_session(opts: JobOptions) -> Iterator[JobOptions]:
    """Yield ``opts`` with the model name and api base the agent (and the judges) should use."""
    with _agent_session(opts) as opts, _judge_session(opts) as opts:
        yield opts


@contextlib.contextmanager
def _agent_session(opts: JobOptions) -> Iterator[JobOptions]:
    model = opts.agent.model
    if not model or opts.agent.instance is not None:
        yield opts
        return
    from lancebench.agents.registry import INSTALLED
    from lancebench.llm import serving
    from lancebench.llm.local import DEFAULT_CTX_TOKENS
    # A local server gets one slot per concurrent trial (capped): each keeps its own prompt cache,
    # and replies to two trials are computed in one batch (benchmarks/local_model_slots.py).
    slots = min(opts.concurrency, MAX_LOCAL_SLOTS)
    window = INSTALLED_AGENT_CTX_TOKENS if opts.agent.spec in INSTALLED else DEFAULT_CTX_TOKENS
    with serving.model_endpoint(model, opts.agent.api_base, slots=slots, ctx_tokens=window) as (name, api_base):
        recipe = dataclasses.replace(opts.agent, resolved_model=name, resolved_api_base=api_base)
        yield dataclasses.replace(opts, agent=recipe)


@contextlib.contextmanager
def _judge_session(opts: JobOptions) -> Iterator[JobOptions]:
    """The judge model: the agent's server when both are the same local model, else its own."""
    senior = opts.senior
    if senior is None or senior.api_base is not None:
        yield opts
        return
    if senior.model == opts.agent.model and opts.agent.api_base and opts.agent.instance is None:
        yield dataclasses.replace(opts, senior=dataclasses.replace(senior, client_model=opts.agent.resolved_model,
                                                                   api_base=opts.agent.api_base))
        return
    from lancebench.llm import serving
    with serving.model_endpoint(senior.model, None, slots=min(opts.concurrency, MAX_LOCAL_SLOTS)) as (name, api_base):
        yield dataclasses.replace(opts, senior=dataclasses.replace(senior, client_model=name, api_base=api_base))
