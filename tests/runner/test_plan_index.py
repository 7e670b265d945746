"""Resume planning reads the results index, not the results (issue 29, item 1): ``plan`` keeps the
recorded trials from the index's head columns (id, task, attempt, status, usage, configuration
fingerprint) without parsing a ``result.json`` the index holds, and still sees every change the
folders make behind the index's back: a missing, deleted or corrupt index is rebuilt from the
files, a ``result.json`` rewritten after its row was written is read again. No sandbox runs: the
results are written as a run records them (``results.store.write_result``) for the trials ``plan``
itself planned; every expectation is read from the files independently."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from pathlib import Path

import pytest

from lancebench.errors import ResultsError
from lancebench.results.index import INDEX_FILE, config_fingerprint
from lancebench.results.models import TrialResult, Usage
from lancebench.results.paths import JobPaths
from lancebench.results.store import write_result
from lancebench.runner.executor import AgentRecipe
from lancebench.runner.job import JobOptions, kept_results, plan
from lancebench.task.load import load_task

TASKS = Path(__file__).resolve().parents[1] / "fixtures" / "tasks"  # calc (code), pick (choice)


@pytest.fixture
def job(tmp_path):
    """(tasks, options, results written): calc and pick, 3 attempts each, every trial recorded
    (statuses mixed, one invalid per task)."""
    tasks = [load_task(TASKS / "calc"), load_task(TASKS / "pick")]
    opts = JobOptions(name="j", jobs_dir=tmp_path / "jobs", agent=AgentRecipe("nop"), attempts=3)
    todo, kept = plan(tasks, opts)
    assert len(todo) == 6 and kept == []
    written = {}
    for spec in todo:
        status = ("resolved", "unresolved", "invalid")[spec.attempt]
        r = TrialResult(trial_id=spec.trial_id, job="j", task=spec.task.name, task_digest=spec.task.digest,
                        agent="nop", attempt=spec.attempt, status=status, config=spec.config,
                        usage=Usage(cost_usd=0.5 + spec.attempt, input_tokens=10 * spec.attempt))
        spec.paths.root.mkdir(parents=True)
        write_result(spec.paths.result, r)
        written[spec.trial_id] = r
    return tasks, opts, written


def _from_files(opts: JobOptions) -> dict[str, dict]:
    """Each recorded trial as its result.json says, read with json alone."""
    out = {}
    for path in (opts.jobs_dir / opts.name / "trials").glob("*/result.json"):
        d = json.loads(path.read_text())
        out[d["trial_id"]] = {"task": d["task"], "attempt": d["attempt"], "status": d["status"],
                              "cost": d["usage"]["cost_usd"], "tokens": d["usage"]["input_tokens"]}
    return out


def _kept(kept) -> dict[str, dict]:
    return {k.trial_id: {"task": k.task, "attempt": k.attempt, "status": k.status, "cost": k.usage.cost_usd,
                         "tokens": k.usage.input_tokens} for k in kept}


def test_plan_keeps_what_the_files_hold_and_retries_only_invalid(job):
    tasks, opts, written = job
    todo, kept = plan(tasks, opts)
    assert todo == [] and _kept(kept) == _from_files(opts)
    assert {k.config for k in kept} == {config_fingerprint(next(iter(written.values())))}
    opts.retry_invalid = True
    todo, kept = plan(tasks, opts)
    assert sorted((s.task.name, s.attempt) for s in todo) == [("calc", 2), ("pick", 2)]
    assert len(kept) == 4
    # the kept trials' full results, read through the index, are the files'
    paths = opts.jobs_dir / opts.name
    assert [r.model_dump() for r in kept_results(JobPaths(paths), kept)] == [
        TrialResult.model_validate_json((paths / "trials" / k.trial_id / "result.json").read_text()).model_dump()
        for k in kept]


def test_plan_parses_neither_the_file_nor_the_row_json(job):
    """A trial whose result.json is overwritten with bytes that are not JSON, of the same size and
    mtime (so its row stays fresh), and whose row's JSON is replaced by one that is no result (with
    a matching digest): planning keeps the trial from the row's head columns; anything that parsed
    the row's JSON would fall back to the file and fail naming it."""
    tasks, opts, written = job
    tid = next(iter(written))
    path = opts.jobs_dir / opts.name / "trials" / tid / "result.json"
    st = path.stat()
    path.write_bytes(b"x" * st.st_size)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    junk = '{"not": "a result"}'
    with sqlite3.connect(opts.jobs_dir / opts.name / INDEX_FILE) as db:
        db.execute("UPDATE trials SET data = ?, digest = ? WHERE trial_id = ?",
                   (junk, hashlib.sha256(junk.encode()).hexdigest(), tid))
    todo, kept = plan(tasks, opts)
    assert todo == [] and {k.trial_id: k.status for k in kept}[tid] == written[tid].status
    with pytest.raises(ResultsError) as err:  # the full result is read from the file: an error naming it
        kept_results(JobPaths(opts.jobs_dir / opts.name), kept)
    assert str(path) in str(err.value)


@pytest.mark.parametrize("damage", ["deleted", "corrupt file", "older schema", "forged head"])
def test_a_missing_or_broken_index_is_rebuilt_from_the_files(job, damage):
    tasks, opts, written = job
    index = opts.jobs_dir / opts.name / INDEX_FILE
    tid = sorted(written)[1]
    if damage == "deleted":
        index.unlink()
    elif damage == "corrupt file":
        index.write_bytes(b"not a database" * 100)
    else:
        with sqlite3.connect(index) as db:
            if damage == "older schema":
                db.execute("UPDATE meta SET value = '1' WHERE key = 'schema'")
            else:  # a row whose status column no longer matches its head digest
                db.execute("UPDATE trials SET status = 'invalid' WHERE trial_id = ?", (tid,))
    todo, kept = plan(tasks, opts)
    assert todo == [] and _kept(kept) == _from_files(opts)
    with sqlite3.connect(index) as db:
        assert db.execute("SELECT COUNT(*) FROM trials").fetchone()[0] == 6
        assert db.execute("SELECT status FROM trials WHERE trial_id = ?", (tid,)).fetchone()[0] == written[tid].status


def test_a_result_rewritten_after_its_row_is_read_again(job):
    """Another run (or a hand edit) rewrites a result.json without touching the index: planning
    sees the new status (an invalid trial now resolved is kept under --retry-invalid)."""
    tasks, opts, written = job
    tid = next(t for t, r in written.items() if r.status == "invalid")
    path = opts.jobs_dir / opts.name / "trials" / tid / "result.json"
    path.write_text(written[tid].model_copy(update={"status": "resolved"}).model_dump_json(indent=2))
    opts.retry_invalid = True
    todo, kept = plan(tasks, opts)
    assert tid not in {s.trial_id for s in todo} and _kept(kept)[tid]["status"] == "resolved"
    assert _kept(kept) == {t: v for t, v in _from_files(opts).items() if v["status"] != "invalid"}
    path.write_text("{ not json")  # and a rewritten file that cannot be read is an error naming it
    with pytest.raises(ResultsError) as err:
        plan(tasks, opts)
    assert str(path) in str(err.value)
