"""The model's lifetime around a job: a local model server is started for ``-m local[:PATH]``
and stopped when the job ends (also on Ctrl-C); a hosted model is checked once (preflight)
before any sandbox is built, so bad credentials stop the job early."""

from __future__ import annotations

import contextlib
import dataclasses
from typing import Iterator

from lancebench.runner.job import JobOptions

MAX_LOCAL_SLOTS = 4


@contextlib.contextmanager
def model_session(opts: JobOptions) -> Iterator[JobOptions]:
    """Yield ``opts`` with the model name and api base the agent should use."""
    model = opts.agent.model
    if not model or opts.agent.instance is not None:
        yield opts
        return
    from lancebench.llm import serving
    # A local server gets one slot per concurrent trial (capped): each keeps its own prompt cache,
    # and replies to two trials are computed in one batch (benchmarks/local_model_slots.py).
    with serving.model_endpoint(model, opts.agent.api_base, slots=min(opts.concurrency, MAX_LOCAL_SLOTS)) as (name, api_base):
        recipe = dataclasses.replace(opts.agent, resolved_model=name, api_base=api_base)
        yield dataclasses.replace(opts, agent=recipe)
