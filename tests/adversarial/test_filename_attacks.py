"""File names the harness must carry through to the job's results: protected files under folders
whose names are not UTF-8 (and hold a newline).

Found by the attack pass after issue 12: the dropped paths held undecodable bytes (lone
surrogates in Python), the result could not be written as JSON, and the whole job ended with an
internal error and no result (exit 70). Now every string of a result is written with such
characters escaped (``results.models.readable``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lbtest import TASKS, job_dir, lb, one_result

from lancebench.results.models import TrialResult

AGENTS = Path(__file__).resolve().parent / "agents"
DROPPED = ["n\nl\\udc80/sitecustomize.py", "\\udcff\\udcfe/conftest.py"]  # bytes 0x80, 0xff, 0xfe escaped


@pytest.mark.slow
def test_non_utf8_protected_names_are_recorded(jobs, backend):
    lb("run", "-p", TASKS / "calc", "-a", f"script:{AGENTS / 'nonutf8_protected_names.sh'}", "-o", jobs,
       "--backend", backend, check=True, timeout=900)
    r = one_result(jobs)
    assert r["status"] == "unresolved", (r["status"], r["reason"])
    assert sorted(r["dropped_paths"]) == sorted(DROPPED)
    assert r["tests"]["test_calc::test_add"] == "failed"  # graded, without the planted conftest
    lb("show", job_dir(jobs), check=True)


def test_a_result_with_undecodable_names_is_written():
    raw = b"\xff\xfe/conftest.py".decode("utf-8", "surrogateescape")
    r = TrialResult(trial_id="t", job="j", task="calc", task_digest="d", agent="a", attempt=0, status="unresolved",
                    reason=f"dropped {raw}", dropped_paths=[raw])
    back = json.loads(r.model_dump_json())
    assert back["dropped_paths"] == ["\\udcff\\udcfe/conftest.py"]
    assert back["reason"] == "dropped \\udcff\\udcfe/conftest.py"
    plain = TrialResult(trial_id="t", job="j", task="calc", task_digest="d", agent="a", attempt=0,
                        status="resolved", reason="ünïcode ok")
    assert json.loads(plain.model_dump_json())["reason"] == "ünïcode ok"  # valid text unchanged


def test_a_link_with_an_undecodable_name_in_the_verifiers_folder_is_no_crash(jobs, shared):
    # Found with issue 14's artifacts: copying a folder that holds a link whose name is not UTF-8
    # wrote the copy's notes ("... symbolic link left out") with an encoding error, an internal
    # error of the trial. The verifier's own folder is copied that way, and the code under test
    # can write there.
    import shutil
    task = shared / "calc"
    shutil.copytree(TASKS / "calc", task)
    test_sh = task / "tests" / "test.sh"
    test_sh.write_text(test_sh.read_text() + "ln -s /etc $'/logs/verifier/\\xfelink'\n")
    lb("run", "-p", task, "-a", "oracle", "-o", jobs, check=True)
    r = one_result(jobs)
    assert (r["status"], r["rewards"]["reward"]) == ("resolved", 1.0), r["reason"]
    (notes,) = job_dir(jobs).glob("trials/*/verifier/run-0/logs.copy-notes.txt")
    assert notes.read_text(encoding="utf-8") == "\\udcfelink: symbolic link left out\n"
