"""Harbor job folders read as lancebench trial results, so ``show`` and ``report`` put runs of
both harnesses side by side.

A Harbor 0.25 job folder holds ``config.json`` (``job_name``) and one folder per trial with its
``result.json`` (``task_name``, ``trial_name``, ``task_checksum``, ``agent_info``,
``agent_result``, ``verifier_result.rewards``, ``exception_info``, ``step_results``,
``started_at``/``finished_at``). Each trial becomes a :class:`TrialResult`:

- rewards: ``verifier_result.rewards`` as they are;
- status: ``invalid`` when Harbor recorded no rewards (its exception, if any, is the reason; this
  is how lancebench counts a trial without a verdict), else ``resolved`` when the main reward
  (``reward``, or every key when there is none, as :func:`lancebench.grading.outcome.main_reward`)
  is >= 1, else ``unresolved``;
- agent: ``harbor:<agent name>``, so a report of both harnesses' jobs shows them on separate rows;
- attempt: the trial's rank among the same task's trials, by start time;
- usage: ``agent_result`` tokens and USD; timings: the wall seconds from start to finish.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from lancebench.errors import ResultsError
from lancebench.results.models import StepResult, Timings, TrialResult, Usage


def is_harbor_job(path: Path) -> bool:
    """``path`` is a Harbor job folder (``config.json`` with ``job_name``, no ``trials/``)."""
    config = path / "config.json"
    if not config.is_file() or (path / "trials").exists():
        return False
    try:
        return "job_name" in json.loads(config.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False


def _seconds(start: str | None, end: str | None) -> float:
    try:
        return (datetime.fromisoformat(str(end)) - datetime.fromisoformat(str(start))).total_seconds()
    except (TypeError, ValueError):
        return 0.0


def _status(rewards: dict[str, float] | None, exception: dict | None) -> tuple[str, str | None]:
    if not rewards:
        why = exception.get("exception_type", "error") + ": " + str(exception.get("exception_message", ""))[:500] \
            if exception else "Harbor recorded no rewards"
        return "invalid", why
    main = rewards["reward"] if "reward" in rewards else min(rewards.values())
    return ("resolved", None) if main >= 1.0 else ("unresolved", f"reward {main:g} < 1")


def _floats(rewards: dict | None) -> dict[str, float]:
    return {k: float(v) for k, v in (rewards or {}).items()}


def harbor_trial(data: dict[str, Any], job: str, attempt: int) -> TrialResult:
    """One Harbor ``result.json`` (parsed) as a :class:`TrialResult` (see the module docstring)."""
    verifier = data.get("verifier_result") or {}
    rewards = {k: float(v) for k, v in (verifier.get("rewards") or {}).items()}
    status, reason = _status(rewards, data.get("exception_info"))
    agent = data.get("agent_info") or {}
    model = (agent.get("model_info") or {}).get("name")
    used = data.get("agent_result") or {}
    usage = Usage(input_tokens=used.get("n_input_tokens") or 0, output_tokens=used.get("n_output_tokens") or 0,
                  cached_tokens=used.get("n_cache_tokens") or 0, cost_usd=used.get("cost_usd"))
    steps = [StepResult(name=str(s.get("step_name") or s.get("name")),
                        rewards=_floats((s.get("verifier_result") or {}).get("rewards")))
             for s in data.get("step_results") or []]
    return TrialResult(trial_id=str(data.get("trial_name") or data.get("id")), job=job, task=str(data["task_name"]),
                       task_digest=str(data.get("task_checksum") or ""), dataset=data.get("source"),
                       agent=f"harbor:{agent.get('name') or 'unknown'}", model=model, attempt=attempt, status=status,
                       reason=reason, rewards=rewards, steps=steps, usage=usage,
                       timings=Timings(total_sec=_seconds(data.get("started_at"), data.get("finished_at"))),
                       started_at=str(data.get("started_at") or ""), finished_at=str(data.get("finished_at") or ""),
                       extra={"harness": "harbor"})


def load_harbor_trials(path: Path) -> tuple[str, list[TrialResult], list[Path]]:
    """(job name, trials, unfinished trial folders) of the Harbor job folder ``path``. Raises
    :class:`ResultsError` naming a ``result.json`` that cannot be read."""
    job = json.loads((path / "config.json").read_text(encoding="utf-8")).get("job_name") or path.name
    raw, unfinished = [], []
    for trial in sorted(p for p in path.iterdir() if p.is_dir()):
        result = trial / "result.json"
        if not result.is_file():
            unfinished.append(trial)
            continue
        try:
            data = json.loads(result.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ResultsError(result, f"is not a readable Harbor trial result: {exc}") from exc
        if not isinstance(data, dict) or "task_name" not in data:
            raise ResultsError(result, "is not a Harbor trial result (no task_name)")
        raw.append(data)
    raw.sort(key=lambda d: (d["task_name"], str(d.get("started_at") or "")))
    seen: dict[str, int] = {}
    trials = []
    for data in raw:
        attempt = seen.get(data["task_name"], 0)
        seen[data["task_name"]] = attempt + 1
        trials.append(harbor_trial(data, job, attempt))
    return job, trials, unfinished
