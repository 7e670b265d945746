"""`lancebench check` fails a task whose reference patch loses a file to the protected-path
filter (issue 14, item 6): the fix an agent would be graded on differs from the author's."""

from __future__ import annotations

import json
import shutil

from lbtest import TASKS, lb

from lancebench.caches.cache import home


def _calc(shared, name, extra_solve: str):
    dest = shared / name
    shutil.copytree(TASKS / "calc", dest)
    solve = dest / "solution" / "solve.sh"
    solve.write_text(solve.read_text() + extra_solve)
    return dest


def test_check_names_the_file_the_reference_patch_loses(shared, tmp_path):
    task = _calc(shared, "calc-loses", "mkdir -p pkg && echo '# config' > pkg/conftest.py\n")
    proc = lb("check", "-p", task, "-k", "1", "-o", tmp_path / "jobs", check=False)
    assert "pkg/conftest.py" in proc.stdout + proc.stderr and "unprotect" in proc.stdout + proc.stderr


def test_unprotect_makes_it_pass(shared, tmp_path):
    task = _calc(shared, "calc-unprotected", "mkdir -p pkg && echo '# config' > pkg/conftest.py\n")
    toml = task / "task.toml"
    toml.write_text(toml.read_text().replace('split = "public"', 'split = "public"\nunprotect = ["pkg/conftest.py"]'))
    lb("check", "-p", task, "-k", "1", "-o", tmp_path / "jobs", check=True)


def test_a_check_leaves_another_checks_scratch_alone(shared, tmp_path):
    """Two checks of one task list ran side by side (`check -d mini` on local and on docker) shared
    `scratch/check-<label>`: the first to finish removed it under the other, which crashed
    (FileNotFoundError writing app.log, found running CI's two checks at once). Each check now has
    a folder of its own: another check's folder, here a marker where the shared one was, stays."""
    other = home() / "scratch" / "check-calc" / "calc" / "out"
    other.mkdir(parents=True, exist_ok=True)
    (other / "marker").write_text("another check's file")
    try:
        lb("check", "-p", TASKS / "calc", "-k", "1", "-o", tmp_path / "jobs", check=True)
        assert (other / "marker").read_text() == "another check's file"
    finally:
        shutil.rmtree(home() / "scratch" / "check-calc", ignore_errors=True)


def _listing(shared, name: str, f2p: list[str], p2p: list[str]):
    dest = shared / "listings" / name
    shutil.copytree(TASKS / "calc", dest)
    toml = dest / "task.toml"
    text = toml.read_text()
    text = text.replace('f2p = ["test_calc::test_add", "test_calc::test_add_negative"]', f"f2p = {json.dumps(f2p)}")
    toml.write_text(text.replace('p2p = ["test_calc::test_mul"]', f"p2p = {json.dumps(p2p)}"))
    return dest


def test_the_base_is_judged_by_its_outcomes_with_or_without_a_missing_id(shared, tmp_path):
    """`check` judges the untouched base from nop's trial (its empty patch graded in a fresh
    sandbox) and grades the base itself only when that trial holds too little: here a listed id
    matches no test, and the problem must name the report's ids. On calc's base ``test_add`` and
    ``test_add_negative`` fail and ``test_mul`` passes (its bug is in ``add``), so listing them the
    wrong way round must be reported either way."""
    shutil.rmtree(shared / "listings", ignore_errors=True)
    _listing(shared, "calc-swapped", ["test_calc::test_mul", "test_calc::test_add"], ["test_calc::test_add_negative"])
    _listing(shared, "calc-missing", ["test_calc::test_mul", "test_calc::test_nope"], ["test_calc::test_add"])
    out = tmp_path / "check.json"
    lb("check", "-p", shared / "listings", "-k", "1", "-o", tmp_path / "jobs", "--json-out", out, check=False)
    verdicts = {t["task"]: t for t in json.loads(out.read_text())["tasks"]}
    swapped, missing = verdicts["calc-swapped"], verdicts["calc-missing"]
    assert swapped["base"] == {"test_calc::test_mul": "passed", "test_calc::test_add": "failed",
                               "test_calc::test_add_negative": "failed"}
    assert sorted(swapped["problems"]) == ["base: F2P test test_calc::test_mul already passes",
                                           "base: P2P test test_calc::test_add_negative is failed"]
    assert "base: F2P test test_calc::test_mul already passes" in missing["problems"]
    assert "base: P2P test test_calc::test_add is failed" in missing["problems"]
    (named,) = [p for p in missing["problems"] if "matches no test of the JUnit report" in p]
    assert "test_calc::test_nope" in named and "test_calc::test_add_negative" in named
