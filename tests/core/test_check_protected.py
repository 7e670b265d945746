"""`lancebench check` fails a task whose reference patch loses a file to the protected-path
filter (issue 14, item 6): the fix an agent would be graded on differs from the author's."""

from __future__ import annotations

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
