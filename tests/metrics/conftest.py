"""Builders of real TrialResult objects and job folders for the metrics tests."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from lancebench.results.models import JobConfig, TrialResult, Usage

_ids = itertools.count()


def build_trial(task: str, status: str, *, price: float = 100.0, cost: float | None = 1.0, attempt: int | None = None,
                agent: str = "mini", model: str | None = "m1", dataset: str | None = "mini", job: str = "job1",
                digest: str | None = None, **kw) -> TrialResult:
    n = next(_ids)
    return TrialResult(trial_id=f"{task}-{n}", job=job, task=task, task_digest=digest or f"digest-{task}",
                       dataset=dataset, agent=agent, model=model, attempt=n if attempt is None else attempt,
                       status=status, price_usd=price, usage=Usage(cost_usd=cost, input_tokens=10, output_tokens=2,
                                                                    cached_tokens=1), **kw)


def write_job(root: Path, name: str, trials: list[TrialResult], *, agent: str = "mini",
              model: str | None = "m1") -> Path:
    job = root / name
    (job / "trials").mkdir(parents=True)
    (job / "job.json").write_text(JobConfig(name=name, agent=agent, model=model).model_dump_json())
    for t in trials:
        d = job / "trials" / t.trial_id
        d.mkdir()
        (d / "result.json").write_text(t.model_dump_json(indent=1))
    return job


@pytest.fixture
def trial():
    return build_trial


@pytest.fixture
def job_writer():
    return write_job
