"""The results index (``JOB/index.sqlite``, :mod:`lancebench.results.index`) agrees with the trial
folders whatever happened to it: deleted, a ``result.json`` added or rewritten behind its back, a
corrupt row, a corrupt database file; and ``show`` reads it to print the summary of every trial
and only the trials asked for. Synthetic jobs of a few hundred trials, written as a run writes
them; every expected value is read from the files independently."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from pathlib import Path

import pytest

from lancebench.errors import ResultsError
from lancebench.metrics import summarize
from lancebench.results.index import INDEX_FILE, IndexedTrials
from lancebench.results.load import load_job, open_job
from lancebench.results.models import TrialConfig, TrialResult, Usage
from lancebench.results.store import write_result

STATUSES = ("resolved", "unresolved", "invalid")
CONFIG = TrialConfig(agent="nop", backend="local")


def _result(job: str, i: int, status: str | None = None) -> TrialResult:
    status = status or STATUSES[(i * 7) % 5 % 3]
    return TrialResult(trial_id=f"task-{i // 3:04d}__{i % 3}__k{i:05d}", job=job, task=f"task-{i // 3:04d}",
                       task_digest="d" * 12, agent="nop", attempt=i % 3, status=status,
                       reason=None if status == "resolved" else f"reason {i}",
                       rewards={"reward": 1.0 if status == "resolved" else 0.0}, usage=Usage(cost_usd=0.001 * i),
                       config=CONFIG)


def _write(job_dir: Path, result: TrialResult) -> Path:
    folder = job_dir / "trials" / result.trial_id
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "result.json").write_text(result.model_dump_json(indent=2), encoding="utf-8")
    return folder / "result.json"


def _job(tmp_path: Path, n: int = 300, unfinished: int = 4) -> Path:
    job_dir = tmp_path / "job"
    (job_dir / "trials").mkdir(parents=True)
    ids = []
    for i in range(n):
        ids.append(_write(job_dir, _result("job", i)).parent.name)
    for j in range(unfinished):  # planned, folder made, no result yet
        tid = f"zz-unfinished__{j}__u{j}"
        (job_dir / "trials" / tid).mkdir()
        ids.append(tid)
    (job_dir / "plan.json").write_text(json.dumps(sorted(ids)), encoding="utf-8")
    return job_dir


def _from_files(job_dir: Path) -> list[dict]:
    """The planned results as the folders hold them, read without lancebench's loader."""
    out = []
    for tid in json.loads((job_dir / "plan.json").read_text()):
        path = job_dir / "trials" / tid / "result.json"
        if path.is_file():
            out.append(TrialResult.model_validate(json.loads(path.read_text())).model_dump())
    return out


def _loaded(job_dir: Path) -> list[dict]:
    return [r.model_dump() for r in load_job(job_dir).results]


def _rows(job_dir: Path) -> int:
    with sqlite3.connect(job_dir / INDEX_FILE) as db:
        return db.execute("SELECT COUNT(*) FROM trials").fetchone()[0]


def test_the_index_agrees_with_the_folders_and_is_rebuilt_when_deleted(tmp_path):
    job_dir = _job(tmp_path)
    expected = _from_files(job_dir)
    assert len(expected) == 300
    assert _loaded(job_dir) == expected
    assert _rows(job_dir) == 300
    assert len(load_job(job_dir).unfinished) == 4
    (job_dir / INDEX_FILE).unlink()
    assert _loaded(job_dir) == expected
    assert _rows(job_dir) == 300


def test_results_added_rewritten_or_removed_behind_its_back_are_seen(tmp_path):
    job_dir = _job(tmp_path)
    load_job(job_dir)  # the index now holds every row
    plan = json.loads((job_dir / "plan.json").read_text())
    added = _write(job_dir, _result("job", 300, "resolved"))  # another writer, an rsync, a copy
    (job_dir / "plan.json").write_text(json.dumps(sorted(plan + [added.parent.name])))
    target = job_dir / "trials" / plan[0] / "result.json"
    old = TrialResult.model_validate_json(target.read_text())
    new_status = "invalid" if old.status != "invalid" else "resolved"
    target.write_text(old.model_copy(update={"status": new_status, "reason": "edited"}).model_dump_json(indent=2))
    removed = job_dir / "trials" / plan[1] / "result.json"
    removed.unlink()
    loaded = load_job(job_dir)
    assert [r.model_dump() for r in loaded.results] == _from_files(job_dir)
    by_id = {r.trial_id: r for r in loaded.results}
    assert by_id[plan[0]].status == new_status and added.parent.name in by_id and plan[1] not in by_id
    assert removed.parent in loaded.unfinished
    assert _rows(job_dir) == 300  # one added, one removed


def test_a_corrupt_row_is_read_again_from_its_file(tmp_path):
    job_dir = _job(tmp_path)
    expected = _from_files(job_dir)
    load_job(job_dir)
    plan = json.loads((job_dir / "plan.json").read_text())
    with sqlite3.connect(job_dir / INDEX_FILE) as db:
        db.execute("UPDATE trials SET data = '{broken' WHERE trial_id = ?", (plan[0],))
        # valid JSON with another status: the digest no longer matches
        row = db.execute("SELECT data FROM trials WHERE trial_id = ?", (plan[1],)).fetchone()[0]
        forged = json.loads(row) | {"status": "resolved" if json.loads(row)["status"] != "resolved" else "invalid"}
        db.execute("UPDATE trials SET data = ? WHERE trial_id = ?", (json.dumps(forged), plan[1]))
    assert _loaded(job_dir) == expected
    with sqlite3.connect(job_dir / INDEX_FILE) as db:  # and the rows were repaired
        data = dict(db.execute("SELECT trial_id, data FROM trials WHERE trial_id IN (?, ?)", plan[:2]).fetchall())
    assert [TrialResult.model_validate_json(data[t]).model_dump() for t in plan[:2]] == expected[:2]


def test_a_corrupt_database_file_is_rebuilt(tmp_path):
    job_dir = _job(tmp_path, n=30)
    expected = _from_files(job_dir)
    (job_dir / INDEX_FILE).write_bytes(b"not a database" * 100)
    assert _loaded(job_dir) == expected
    assert _rows(job_dir) == 30


def test_a_corrupt_result_file_is_an_error_naming_it_even_with_a_row(tmp_path):
    job_dir = _job(tmp_path, n=30)
    load_job(job_dir)
    bad = job_dir / "trials" / json.loads((job_dir / "plan.json").read_text())[3] / "result.json"
    bad.write_text("{ not json")
    with pytest.raises(ResultsError) as err:
        load_job(job_dir)
    assert str(bad) in str(err.value)


def test_pages_and_filters_match_the_files(tmp_path):
    job_dir = _job(tmp_path)
    expected = sorted((TrialResult.model_validate(d) for d in _from_files(job_dir)),
                      key=lambda r: (r.task, r.attempt, r.trial_id))
    invalid = [r for r in expected if r.status == "invalid"]
    with open_job(job_dir) as job:
        assert job.trials.count() == 300
        assert job.trials.count(["invalid"]) == len(invalid) > 0
        page = job.trials.page(["invalid"], offset=5, limit=7)
        assert [r.trial_id for r in page] == [r.trial_id for r in invalid[5:12]]
        first = job.trials.page(task_glob="task-001*", limit=None)
        assert [r.trial_id for r in first] == [r.trial_id for r in expected if r.task.startswith("task-001")]
        assert [r.trial_id for r in job.trials.find(expected[42].trial_id)] == [expected[42].trial_id]
        assert len(job.trials.find("task-0000__")) == 3


def test_a_read_only_job_folder_is_read_through_an_index_in_memory(tmp_path):
    job_dir = _job(tmp_path, n=30)
    expected = _from_files(job_dir)
    ids = json.loads((job_dir / "plan.json").read_text())
    (job_dir / INDEX_FILE).mkdir()  # cannot be opened nor deleted as a file: the index lives in memory
    with IndexedTrials(job_dir, ids) as index:
        assert [r.model_dump() for r in index.results()] == expected


def test_a_result_of_a_newer_schema_says_to_upgrade_not_to_delete_it(tmp_path):
    """A ``result.json`` written by a newer lancebench (a higher ``schema_version``, extra fields)
    is an error naming the file whose fix is an upgrade; the old advice (delete the trial's folder
    and re-run it) would throw a recorded trial away. The file is left as it was."""
    job_dir = _job(tmp_path, n=6)
    newer = job_dir / "trials" / json.loads((job_dir / "plan.json").read_text())[2] / "result.json"
    data = json.loads(newer.read_text())
    data.update(schema_version=TrialResult.model_fields["schema_version"].default + 1, judged_by="future")
    newer.write_text(json.dumps(data))
    before = newer.read_bytes()
    with pytest.raises(ResultsError) as err:
        load_job(job_dir)
    said = str(err.value)
    assert str(newer) in said and "newer lancebench" in said and "upgrade" in said
    assert "delet" not in said
    assert newer.read_bytes() == before


def _show(*args: str) -> str:
    """``lancebench show ARGS`` in this process (a CLI start per call would cost more than the rest)."""
    from typer.testing import CliRunner

    from lancebench.cli import app
    result = CliRunner().invoke(app, ["show", *args])
    assert result.exit_code == 0, result.output
    return result.stdout


def test_show_prints_the_summary_of_every_trial_and_a_page_of_them(tmp_path):
    job_dir = _job(tmp_path)
    results = [TrialResult.model_validate(d) for d in _from_files(job_dir)]
    expected = summarize(results)
    summary = json.loads(_show(str(job_dir), "--json"))
    assert (summary["trials"], summary["resolved"], summary["invalid"], summary["unfinished"]) == (
        300, expected["resolved"], expected["invalid"], 4)
    text = _show(str(job_dir))
    listed = [line for line in text.splitlines() if line.lstrip().startswith("task-")]
    assert len(listed) == 50 and "trials 1–50 of 300" in text and "250 more trial(s)" in text
    invalid = sorted((r for r in results if r.status == "invalid"), key=lambda r: (r.task, r.attempt))
    text = _show(str(job_dir), "--status", "invalid", "--limit", "3", "--offset", "1")
    listed = [line.split()[:3] for line in text.splitlines() if line.lstrip().startswith("task-")]
    assert listed == [[r.task, str(r.attempt), "invalid"] for r in invalid[1:4]]
    # the summary counts the trials --status chooses, every one of them (not the page)
    assert f"trials={len(invalid)}  resolved=0  unresolved=0  invalid={len(invalid)}" in text
    assert f"summary of the {len(invalid)} trial(s) matching --status invalid (300 recorded in the job)" in text


@pytest.mark.parametrize("args,task_glob,statuses", [
    (("--task", "task-000*"), "task-000*", ()),
    (("--task", "task-00[0-2]*", "--status", "resolved", "--status", "unresolved"), "task-00[0-2]*",
     ("resolved", "unresolved")),
    (("--status", "unresolved"), None, ("unresolved",)),
])
def test_show_with_a_filter_summarizes_the_trials_it_chooses(tmp_path, args, task_glob, statuses):
    # before: `show --task GLOB` (or --status) listed the matching trials under the summary of the whole job
    import fnmatch
    job_dir = _job(tmp_path, n=90, unfinished=0)
    for j in range(2):  # unfinished trials of task-0001 (a task --task task-000* matches) and of another one
        for tid in (f"task-0001__{3 + j}__u{j}", f"task-0050__{j}__v{j}"):
            (job_dir / "trials" / tid).mkdir()
    plan = json.loads((job_dir / "plan.json").read_text())
    (job_dir / "plan.json").write_text(json.dumps(sorted(plan + [f"task-0001__{3 + j}__u{j}" for j in range(2)]
                                                         + [f"task-0050__{j}__v{j}" for j in range(2)])))
    chosen = [TrialResult.model_validate(d) for d in _from_files(job_dir)
              if (task_glob is None or fnmatch.fnmatchcase(d["task"], task_glob))
              and (not statuses or d["status"] in statuses)]
    expected = summarize(chosen)
    summary = json.loads(_show(str(job_dir), "--json", *args))
    for key in ("trials", "resolved", "unresolved", "invalid", "pass_at_1", "cost_usd", "tasks"):
        assert summary[key] == pytest.approx(expected[key]), key
    assert 0 < summary["trials"] < 90
    assert summary["selection"] == {"task": task_glob, "status": list(statuses), "trials_matching": len(chosen),
                                    "trials_recorded": 90}
    assert summary["unfinished"] == (2 if task_glob == "task-000*" else 0)  # no status: none with --status
    text = _show(str(job_dir), *args, "--limit", "2")  # the page does not change what the summary counts
    assert f"trials={len(chosen)}  resolved={expected['resolved']}  unresolved={expected['unresolved']}" in text
    whole = json.loads(_show(str(job_dir), "--json"))
    assert whole["trials"] == 90 and "selection" not in whole and whole["unfinished"] == 4


def test_show_summary_follows_a_result_rewritten_after_it_was_cached(tmp_path):
    job_dir = _job(tmp_path, n=30, unfinished=0)
    before = json.loads(_show(str(job_dir), "--json"))
    target = next((job_dir / "trials").glob("*/result.json"))
    old = TrialResult.model_validate_json(target.read_text())
    target.write_text(old.model_copy(update={"status": "invalid", "reason": "x" * 40}).model_dump_json(indent=2))
    after = json.loads(_show(str(job_dir), "--json"))
    expected = summarize([TrialResult.model_validate(d) for d in _from_files(job_dir)])
    assert after["invalid"] == expected["invalid"] == before["invalid"] + (old.status != "invalid")


def test_a_recorded_trial_is_in_the_index_before_any_read(tmp_path):
    job_dir = _job(tmp_path, n=6, unfinished=0)
    load_job(job_dir)  # the index exists, as after a run's planning
    new = _result("job", 6, "resolved").model_copy(update={"trial_id": "task-0002__0__knew"})
    path = job_dir / "trials" / new.trial_id / "result.json"
    write_result(path, new)
    st = path.stat()
    with sqlite3.connect(job_dir / INDEX_FILE) as db:
        row = db.execute("SELECT size, mtime_ns, data FROM trials WHERE trial_id = ?", (new.trial_id,)).fetchone()
    assert row[:2] == (st.st_size, st.st_mtime_ns)
    assert json.loads(row[2]) == json.loads(path.read_text())
    # the next read takes the row, not the file: a same-size rewrite with the old mtime is not seen
    path.write_text(path.read_text().replace('"resolved"', '"zesolved"'))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    plan = json.loads((job_dir / "plan.json").read_text()) + [new.trial_id]
    (job_dir / "plan.json").write_text(json.dumps(sorted(plan)))
    assert {r.trial_id: r.status for r in load_job(job_dir).results}[new.trial_id] == "resolved"


def test_the_writer_keeps_its_connection_and_follows_an_index_replaced_behind_it(tmp_path):
    # issue 29: the writer keeps its connection to the index between trials (a connection per
    # trial cost ~2 ms); a reader that replaced a corrupt index meanwhile gets the next rows in the
    # new file, not in the deleted one the kept connection still holds open
    job_dir = _job(tmp_path, n=3, unfinished=0)
    first, second = (_result("job", i, "resolved").model_copy(update={"trial_id": f"task-0009__0__kw{i}"})
                     for i in (9, 10))
    write_result(job_dir / "trials" / first.trial_id / "result.json", first)
    assert _rows(job_dir) == 1  # the writer's row, before any read
    (job_dir / INDEX_FILE).write_bytes(b"not a database")
    with IndexedTrials(job_dir, [first.trial_id]) as index:  # rebuilt: a new file, the row read from the folder
        assert index.ids == [first.trial_id]
    write_result(job_dir / "trials" / second.trial_id / "result.json", second)
    with sqlite3.connect(job_dir / INDEX_FILE) as db:
        ids = sorted(r[0] for r in db.execute("SELECT trial_id FROM trials"))
    assert ids == sorted([first.trial_id, second.trial_id])


def test_a_result_outside_a_job_gets_no_row(tmp_path):
    path = tmp_path / "loose" / "result.json"
    write_result(path, _result("job", 1))
    assert path.is_file() and not (tmp_path / INDEX_FILE).exists()


def _report(*args: str) -> dict:
    from typer.testing import CliRunner

    from lancebench.cli import app
    result = CliRunner().invoke(app, ["report", *args, "--format", "json", "--bootstrap", "20"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_report_is_kept_per_state_of_the_files_and_follows_a_rewrite(tmp_path):
    """``report`` of a job read again parses no result (its data is kept in the index per state of
    the files); a result.json rewritten behind the index's back changes the state, and the report
    follows it."""
    job_dir = _job(tmp_path, n=30, unfinished=0)
    first = _report(str(job_dir))
    expected = summarize([TrialResult.model_validate(d) for d in _from_files(job_dir)])
    assert first["rows"][0]["invalid"] == expected["invalid"] and first["rows"][0]["tasks"] == 10
    # junk in the first trial's file (same size and mtime: the row stays fresh) and in its row's JSON
    # (digest matching): a report that parsed either would fail; the kept one is read
    path = job_dir / "trials" / sorted(json.loads((job_dir / "plan.json").read_text()))[0] / "result.json"
    st = path.stat()
    original = path.read_text()
    path.write_bytes(b"x" * st.st_size)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    with sqlite3.connect(job_dir / INDEX_FILE) as db:
        db.execute("UPDATE trials SET data = '{}', digest = ? WHERE trial_id = ?",
                   (hashlib.sha256(b"{}").hexdigest(), path.parent.name))
    assert _report(str(job_dir)) == first
    old = TrialResult.model_validate_json(original)
    path.write_text(old.model_copy(update={"status": "invalid", "reason": "x" * 40}).model_dump_json(indent=2))
    after = _report(str(job_dir))
    expected = summarize([TrialResult.model_validate(d) for d in _from_files(job_dir)])
    assert after["rows"][0]["invalid"] == expected["invalid"] == first["rows"][0]["invalid"] + (old.status != "invalid")
