"""One row per trial (``lancebench show JOB --format csv|parquet|jsonl``): identity, status and
reason, rewards, usage (tokens, USD), timings (seconds) and the configuration that produced it.

Columns: see :data:`COLUMNS`; ``rewards`` and ``tests`` are JSON text in CSV and Parquet (their
keys differ between tasks), objects in JSONL; ``agent_options`` likewise."""

from __future__ import annotations

import csv
import io
import json
import sys
from collections.abc import Callable
from pathlib import Path

from lancebench.errors import ConfigError, MissingComponentError
from lancebench.results.models import TrialResult

FORMATS = ("csv", "parquet", "jsonl")
COLUMNS = ("trial_id", "job", "task", "dataset", "attempt", "kind", "split", "price_usd", "status", "reason",
           "control", "reward", "rewards", "patch_applied", "agent_exit", "input_tokens", "output_tokens",
           "cached_tokens", "cost_usd", "calls", "environment_sec", "agent_sec", "capture_sec", "grading_sec",
           "total_sec",
           "agent", "model", "api_base", "backend", "agent_timeout_sec", "agent_options", "lancebench_version",
           "started_at", "finished_at", "tests")
_NESTED = ("rewards", "tests", "agent_options")


def trial_row(r: TrialResult) -> dict:
    """The row of one trial (keys: :data:`COLUMNS`; nested values as dicts)."""
    cfg = r.config
    row = {"trial_id": r.trial_id, "job": r.job, "task": r.task, "dataset": r.dataset, "attempt": r.attempt,
           "kind": r.kind, "split": r.split, "price_usd": r.price_usd, "status": r.status, "reason": r.reason,
           "control": r.control, "reward": r.rewards.get("reward"), "rewards": r.rewards,
           "patch_applied": r.patch_applied, "agent_exit": r.agent_exit,
           **r.usage.model_dump(exclude={"retries"}), **r.timings.model_dump(),
           "agent": r.agent, "model": r.model, "api_base": cfg.api_base if cfg else None,
           "backend": cfg.backend if cfg else None, "agent_timeout_sec": cfg.agent_timeout_sec if cfg else None,
           "agent_options": cfg.agent_options if cfg else None,
           "lancebench_version": cfg.lancebench_version if cfg else None,
           "started_at": r.started_at, "finished_at": r.finished_at, "tests": r.tests}
    return {k: row[k] for k in COLUMNS}


def _flat(row: dict) -> dict:
    return {k: json.dumps(v, sort_keys=True) if k in _NESTED and v is not None else v for k, v in row.items()}


def write_trials(results: list[TrialResult], fmt: str, out: Path | None) -> None:
    """Write ``results`` (sorted by task, attempt) as ``fmt`` to ``out`` (standard output when
    None, except Parquet). Raises :class:`ConfigError` for an unknown format or Parquet without a
    file, :class:`MissingComponentError` when pyarrow is not installed."""
    if fmt not in FORMATS:
        raise ConfigError(f"--format {fmt}: choose one of {', '.join(FORMATS)}")
    rows = [trial_row(r) for r in sorted(results, key=lambda r: (r.task, r.attempt, r.trial_id))]
    if fmt == "parquet":
        if out is None:
            raise ConfigError("--format parquet writes a file: pass -o FILE.parquet")
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError:
            raise MissingComponentError("--format parquet needs pyarrow: pip install 'lancebench[report]'") from None
        table = pa.Table.from_pylist([_flat(r) for r in rows]) if rows else pa.table({c: [] for c in COLUMNS})
        _write_file(out, lambda: pq.write_table(table, out))
        return
    buf = io.StringIO()
    if fmt == "jsonl":
        for row in rows:
            buf.write(json.dumps(row, sort_keys=False) + "\n")
    else:
        writer = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(_flat(r) for r in rows)
    if out is None:
        sys.stdout.write(buf.getvalue())
    else:
        _write_file(out, lambda: Path(out).write_text(buf.getvalue(), encoding="utf-8"))


def _write_file(out: Path, write: Callable[[], object]) -> None:
    """Run ``write`` (which writes ``out``); an ``OSError`` becomes a :class:`ConfigError` naming
    ``-o`` and the fix (a read-only folder, a missing one, a full disk: never a traceback)."""
    try:
        write()
    except OSError as exc:
        raise ConfigError(f"-o {out}: cannot be written ({exc.strerror or exc}); "
                          f"pass a file in a folder you can write") from None
