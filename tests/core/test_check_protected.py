"""`lancebench check` fails a task whose reference patch loses a file to the protected-path
filter (issue 14, item 6): the fix an agent would be graded on differs from the author's."""

from __future__ import annotations

import shutil

from lbtest import TASKS, lb


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
