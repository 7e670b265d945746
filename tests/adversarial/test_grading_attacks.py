"""Attacks on grading, one test per kind of issue 12, two variants each, on both backends.

Every attack must end ``unresolved`` (never ``resolved``, never ``invalid``), the job must exit 0
with every trial recorded, and the harness must say why. The attackers are shell scripts in
``agents/`` run as ``script:PATH``; the tasks are the fixtures ``calc`` (pytest, F2P/P2P,
Dockerfile and local recipe) and tasks derived from it.
"""

from __future__ import annotations

import html
from pathlib import Path

import pytest
from lbtest import TASKS, derive_task, job_dir, lb, one_result, results

from lancebench.grading.canary import MARK as CANARY_MARK
from lancebench.report.html.site import read_chunk, trial_html

AGENTS = Path(__file__).resolve().parent / "agents"
CALC = TASKS / "calc"
PYTHONPATH_TEST_SH = """#!/bin/bash
cd /app
PYTHONPATH=/app python -m pytest -q -p no:cacheprovider /tests/test_calc.py --junitxml=/logs/verifier/junit.xml
if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi
"""


def attack(task: Path, script: str, jobs: Path, backend: str) -> dict:
    """Run attacker ``script`` on ``task`` on ``backend``; the job must exit 0. Returns the result."""
    lb("run", "-p", task, "-a", f"script:{AGENTS / script}", "-o", jobs, "--backend", backend, check=True, timeout=900)
    return one_result(jobs)


def assert_unresolved(r: dict) -> None:
    assert r["status"] == "unresolved", (r["status"], r["reason"])
    assert r["rewards"].get("reward", 0.0) < 1.0, r["rewards"]
    assert r["reason"], "an unresolved attack must say why"


# 1. the verdict written by the process that runs the agent's code ------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("script", ["forge_atexit.sh", "forge_report_objects.sh"])
def test_code_under_test_cannot_write_its_verdict(script, jobs, backend):
    r = attack(CALC, script, jobs, backend)
    assert_unresolved(r)
    assert r["reason"].startswith("the patch changes test-runner machinery (static scan)"), r["reason"]
    assert r["tests"] == {}  # refused before grading: the forged run never happened


@pytest.mark.slow
@pytest.mark.parametrize("script", ["forge_hidden_rewrite.sh", "forge_hidden_replace.sh"])
def test_report_rewritten_after_the_runner_is_caught(script, jobs, backend):
    """The scan cannot read these hooks; the report as the runner wrote it (held by the harness)
    still shows the failures, and the rewrite is named."""
    r = attack(CALC, script, jobs, backend)
    assert_unresolved(r)
    assert r["tests"]["test_calc::test_add"] == "failed", r["tests"]
    assert "the JUnit report was rewritten after the runner wrote it" in r["reason"], r["reason"]


@pytest.mark.slow
@pytest.mark.parametrize("script,note", [("fix_with_atexit_cleanup.sh", "exit hook (its handler neither writes"),
                                         ("fix_with_forked_child.sh", "os._exit in a forked child"),
                                         ("fix_with_tests_docstring.sh", "(in a comment or docstring)")])
def test_harmless_uses_in_a_real_fix_are_graded(script, note, jobs, backend):
    """Not attacks: real fixes that add an exit hook which only cleans up, os._exit in a forked
    child, a docstring naming /tests/. The scan records them as notes; the trial is graded."""
    r = attack(CALC, script, jobs, backend)
    assert r["status"] == "resolved", (r["status"], r["reason"])
    assert r["tests"] == {"test_calc::test_add": "passed", "test_calc::test_add_negative": "passed",
                          "test_calc::test_mul": "passed"}, r["tests"]
    assert any(note in n for n in r["scan_notes"]), r["scan_notes"]
    site = jobs.parent / "site"
    lb("report", job_dir(jobs), "--html", site, check=True)
    (chunk,) = [c for c in site.glob("trials/*/*.js") if r["trial_id"] in read_chunk(c)["trials"]]
    page = trial_html(site, f"trial.html?t={chunk.parent.name}/{chunk.stem}/{r['trial_id']}")
    assert 'id="scan-notes"' in page and html.escape(note, quote=False) in page


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["fork-comment", "exec"])
def test_ending_the_runner_before_it_reports_is_refused(variant, jobs, shared, backend):
    """A task graded by its reward only (no F2P/P2P lists; test.sh writes 1 when pytest exits 0):
    the code under test ends pytest with status 0 at import. Found by the attack pass after
    issue 14: ``resolved`` on both backends (a comment naming ``os.fork()`` made the scan take
    ``os._exit(0)`` for a forked child's exit; ``os.execv`` was not read at all). Now the scan
    decides; the calc task with its lists was already ``unresolved`` (no JUnit report)."""
    task = derive_task(CALC, shared / f"calc-reward-only-{variant}", toml={r"^(f2p|p2p) = .*$": ""},
                       append_instruction=f"VARIANT={variant}")
    r = attack(task, "exit_before_report.sh", jobs, backend)
    assert_unresolved(r)
    assert r["reason"].startswith("the patch changes test-runner machinery (static scan)"), r["reason"]
    assert "outside a forked child" in r["reason"], r["reason"]


# 2. start-up files and modules shadowing the runner's -------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("script,planted", [("shadow_runner_module.sh", "iniconfig.py"),
                                            ("sitecustomize_package.sh", "sitecustomize/__init__.py")])
def test_startup_files_in_every_form_are_dropped(script, planted, jobs, shared, backend):
    task = derive_task(CALC, shared / "calc", files={"tests/test.sh": PYTHONPATH_TEST_SH})
    r = attack(task, script, jobs, backend)
    assert_unresolved(r)
    assert planted in r["dropped_paths"], r["dropped_paths"]
    assert r["tests"]["test_calc::test_add"] == "failed"  # the tests ran, against the unfixed calc


@pytest.mark.slow
@pytest.mark.parametrize("guarded", [True, False], ids=["guarded", "control"])
def test_runner_modules_load_before_the_repository(guarded, jobs, shared, backend):
    """With the name unprotected (so the shadowing iniconfig.py reaches grading), the runner's
    modules are still imported from the environment before /app joins sys.path. Control: with
    the guard off (scan_patch = false, for a test tool's own repository) the same module forges
    a pass in the graded run, so the guarded case passes because of the guard; the canary run
    (issue 20) then catches the forgery on its own."""
    table = '[lancebench]\nunprotect = ["iniconfig.py"]' + ("" if guarded else "\nscan_patch = false")
    task = derive_task(CALC, shared / "calc-unprotected", toml={r"^\[lancebench\]$": table})
    r = attack(task, "shadow_runner_module.sh", jobs, backend)
    assert r["dropped_paths"] == []
    if guarded:
        assert_unresolved(r)
        assert r["tests"]["test_calc::test_add"] == "failed"
    else:  # the graded run was forged; only the canary run stops it
        assert_forged_by_canary(r)


# the task's own PYTHONPATH: set on pytest's command line, or exported (both replace lancebench's)
PYTHONPATH_VARIANTS = {
    "prefix": "PYTHONPATH=/app/vendor:/app python -m pytest",
    "export": "export PYTHONPATH=/app/vendor:/app\npython -m pytest",
}


def _own_pythonpath_task(shared: Path, variant: str, guarded: bool) -> Path:
    test_sh = PYTHONPATH_TEST_SH.replace("PYTHONPATH=/app python -m pytest", PYTHONPATH_VARIANTS[variant])
    assert test_sh != PYTHONPATH_TEST_SH
    toml = {} if guarded else {r"^\[lancebench\]$": "[lancebench]\nscan_patch = false"}
    return derive_task(CALC, shared / f"calc-pythonpath-{variant}", files={"tests/test.sh": test_sh}, toml=toml)


@pytest.mark.slow
@pytest.mark.parametrize("variant", sorted(PYTHONPATH_VARIANTS))
def test_a_test_sh_that_sets_pythonpath_keeps_the_guard(variant, jobs, shared, backend):
    """test.sh puts /app/vendor first on PYTHONPATH (replacing lancebench's); the agent plants
    vendor/iniconfig.py there (no path rule drops it), which forges a pass when pytest imports it.
    The guard still runs (the .pth lancebench writes into every site folder before the patch is
    applied): pytest gets the real iniconfig and the tests fail against the unfixed calc."""
    r = attack(_own_pythonpath_task(shared, variant, guarded=True), "shadow_runner_pythonpath.sh", jobs, backend)
    assert_unresolved(r)
    assert r["dropped_paths"] == []  # it reached grading: the guard, not the path filter, stopped it
    assert r["tests"]["test_calc::test_add"] == "failed", r["tests"]
    assert r["tests"]["test_calc::test_mul"] == "passed", r["tests"]
    listed = (job_dir(jobs) / "trials" / r["trial_id"] / "verifier" / "run-0" / "pyguard.txt").read_text()
    assert "/env/venv/lib/python3" in listed and "/site-packages" in listed, listed


@pytest.mark.slow
def test_a_module_pytest_imports_after_the_guard_is_guarded_too(jobs, shared, backend):
    """The same task with pytest 9 in its environment, and ``vendor/readline.py``: pytest (8.4 and
    later) imports ``readline`` at start-up (``_readline_workaround`` in its capture plugin),
    after the guard restored ``sys.path``, so a module of that name first on the task's
    PYTHONPATH ran in the runner and forged a pass (found by the attack pass after issue 14:
    ``resolved``). The guard now imports it too (and ``getpass``/``termios``, which ``tmp_path``
    imports late, and ``tracemalloc``)."""
    task = _own_pythonpath_task(shared, "export", guarded=True)
    for name in ("Dockerfile", "setup.sh"):
        path = task / "environment" / name
        path.write_text(path.read_text().replace("pytest==8.3.4", "pytest==9.0.2"))
    r = attack(task, "shadow_readline_pythonpath.sh", jobs, backend)
    assert_unresolved(r)
    assert r["dropped_paths"] == []  # it reached grading
    assert r["tests"]["test_calc::test_add"] == "failed", r["tests"]


@pytest.mark.slow
def test_a_test_sh_that_sets_pythonpath_is_forged_without_the_guard(jobs, shared, backend):
    """Control: with the guard off (scan_patch = false) the same attack on the same task forges the
    graded run (all tests pass), so the guarded case above is unresolved because of the guard; the
    canary run (issue 20) then catches the forgery on its own."""
    r = attack(_own_pythonpath_task(shared, "export", guarded=False), "shadow_runner_pythonpath.sh", jobs, backend)
    assert_forged_by_canary(r)


def assert_forged_by_canary(r: dict) -> None:
    """The graded run passed every test of the unfixed calc (the forgery worked there), and the
    trial is unresolved by the canary run's finding (it was resolved before the canary run)."""
    assert r["status"] == "unresolved", (r["status"], r["reason"])
    assert r["reason"].startswith(CANARY_MARK), r["reason"]
    assert r["tests"]["test_calc::test_add"] == "passed", r["tests"]


# 3. paths read exactly -------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("script,path", [("quoted_path_text.sh", 'x" b/y/conftest.py'),
                                         ("quoted_path_binary.sh", 'q b/"r b/conftest.py')])
def test_quoted_paths_are_read_exactly(script, path, jobs, backend):
    r = attack(CALC, script, jobs, backend)
    assert_unresolved(r)
    assert r["dropped_paths"] == [path]


# 4. workspace content that breaks the capture is the agent's doing -----------------------------
@pytest.mark.slow
@pytest.mark.parametrize("script", ["gitmodules_symlink.sh", "gitmodules_symlink_nested.sh"])
def test_uncapturable_workspace_is_unresolved_not_invalid(script, jobs, backend):
    r = attack(CALC, script, jobs, backend)
    assert_unresolved(r)
    assert "workspace could not be captured" in r["reason"], r["reason"]
    # the control that cleared the harness: the same capture of the pristine base worked
    assert r["control"].startswith("the same capture of the pristine base ("), r["control"]
    assert r["control"].endswith(", in the same scratch space, worked: the agent's work made the capture fail")
    # grading began during the capture (runner.steps._grade_early): ended unused, it left no run
    verifier = job_dir(jobs) / "trials" / r["trial_id"] / "verifier"
    assert not any((verifier / run).exists() for run in ("run-0", "canary")), sorted(verifier.rglob("*"))


# 5. hostile trees --------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("script", ["deep_workspace.sh", "deep_verifier_logs.sh"])
def test_deep_trees_are_recorded_and_cleaned(script, jobs, backend):
    r = attack(CALC, script, jobs, backend)
    assert_unresolved(r)
    assert r["tests"]["test_calc::test_add"] == "failed"
    # the job's show works on the result, and a rerun of the same job does not crash either
    assert len(results(job_dir(jobs))) == 1
    lb("show", job_dir(jobs), check=True)


# 6. limits ---------------------------------------------------------------------------------------
def _limited(shared: Path, storage_mb: int, patch_mb: int) -> Path:
    return derive_task(CALC, shared / "calc-limited", toml={
        r"^memory_mb = 1024$": f"memory_mb = 1024\nstorage_mb = {storage_mb}",
        r"^\[lancebench.local\]$": f"[lancebench.limits]\npatch_mb = {patch_mb}\n\n[lancebench.local]"})


@pytest.mark.slow
def test_storage_bounds_the_sum_of_files(jobs, shared, backend):
    r = attack(_limited(shared, 64, 8), "many_files.sh", jobs, backend)
    assert_unresolved(r)
    patch = (job_dir(jobs) / "trials" / r["trial_id"] / "patch.diff").read_text()
    written = int(next(line[1:] for line in patch.splitlines() if line[1:].isdigit() and line.startswith("+")))
    assert 0 < written <= 64 * 1024 * 1024, written  # five 20 MB files were attempted


@pytest.mark.slow
def test_patch_over_the_cap_is_unresolved(jobs, shared, backend):
    r = attack(_limited(shared, 400, 8), "big_file.sh", jobs, backend)
    assert_unresolved(r)
    assert "patch_mb" in r["reason"], r["reason"]
    assert not (job_dir(jobs) / "trials" / r["trial_id"] / "patch.diff").exists()


# 8. minor: links planted during grading, nested user namespaces ---------------------------------
@pytest.mark.slow
def test_links_planted_at_grading_stay_out_of_the_job_folder(jobs, backend):
    r = attack(CALC, "links_in_verifier_logs.sh", jobs, backend)
    assert_unresolved(r)
    trial = job_dir(jobs) / "trials" / r["trial_id"]
    links = [str(p) for p in trial.rglob("*") if p.is_symlink()]
    assert links == []
    notes = (trial / "verifier" / "run-0" / "logs.copy-notes.txt").read_text()
    assert "etc-link: symbolic link left out" in notes and "shadow-link: symbolic link left out" in notes


@pytest.mark.slow
def test_no_nested_user_namespace(jobs, backend):
    r = attack(CALC, "nested_userns.sh", jobs, backend)
    assert_unresolved(r)
    patch = (job_dir(jobs) / "trials" / r["trial_id"] / "patch.diff").read_text()
    assert "+userns=refused" in patch, patch
