"""``--repo-path``: manager tasks whose agent browses a clone of the product at the parent of
``manager_commit``. The clone here is a real git repository made for the test (Expensify/App is
not reachable offline); the table rows are real ones with ``manager_commit`` pointed at its commits."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import pytest
from test_swelancer_runs import lancebench

from lancebench.datasets.swelancer import adapter as swelancer
from lancebench.datasets.swelancer.table import COLUMNS
from lancebench.errors import DatasetError
from lancebench.results.store import read_results

FUTURE = "FUTURE-FIX-b5e1c0"  # only in the commit the manager merged: the agent must never see it


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True,
                          env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                               "GIT_COMMITTER_EMAIL": "t@t", "PATH": "/usr/bin:/bin"}).stdout.strip()


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> tuple[Path, list[str], list[str]]:
    """A repository with, per task, a base commit and the manager's commit on top of it; returns
    (repo, base commits, manager commits)."""
    repo = tmp_path_factory.mktemp("App")
    git(repo, "init", "-q", "-b", "main")
    bases, merged = [], []
    for i in range(2):
        (repo / "src").mkdir(exist_ok=True)
        (repo / "src" / "Avatar.js").write_text(f"export const MAX_SIZE = {6291456 + i};\n")
        (repo / "run.sh").write_text("#!/bin/sh\necho runs\n")
        (repo / "run.sh").chmod(0o755)
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", f"base {i}")
        bases.append(git(repo, "rev-parse", "HEAD"))
        (repo / "src" / "Avatar.js").write_text(f"// {FUTURE}\nexport const MAX_SIZE = 1;\n")
        git(repo, "commit", "-qam", f"fix {i} {FUTURE}")
        merged.append(git(repo, "rev-parse", "HEAD"))
    return repo, bases, merged


def small_table(table_path: Path, out: Path, commits: list[str]) -> tuple[Path, list[dict[str, str]]]:
    csv.field_size_limit(sys.maxsize)
    with table_path.open(newline="", encoding="utf-8") as fh:
        rows = [r for r in csv.DictReader(fh) if r["variant"] == "swe_manager"][:len(commits)]
    for r, c in zip(rows, commits, strict=False):
        r["manager_commit"] = c
    with out.open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(COLUMNS))
        w.writeheader()
        w.writerows(rows)
    return out, rows


def test_agent_browses_the_tree_before_the_fix_and_answers_there(table_path, clone, tmp_path):
    repo, bases, merged = clone
    csv_path, rows = small_table(table_path, tmp_path / "t.csv", merged)
    agent = tmp_path / "probe.sh"
    agent.write_text(f"""#!/bin/bash
echo "pwd=$(pwd)"
echo "avatar=$(grep -o 'MAX_SIZE = [0-9]*' src/Avatar.js)"
echo "run=$(./run.sh)"
echo "commits=$(git rev-list --all | wc -l)"
echo "objects=$(git count-objects -v | grep -E '^(count|in-pack):' | tr '\\n' ' ')"
# every file of the sandbox (devices skipped, as grep -r skips them) but the host's /usr (bound
# read-only, 7 GB here: most of this test's time when grepped): the top-level folders and files
# but /proc, /sys, /usr and the links into /usr, and whatever is mounted under /usr
roots=$(for e in /* /.[!.]*; do
         [ -L "$e" ] || [ ! -e "$e" ] || case "$e" in /proc|/sys|/usr) ;; *) echo "$e" ;; esac; done)
under_usr=$(awk '$5 ~ "^/usr/" {{print $5}}' /proc/self/mountinfo)
echo "future=$(grep -rl "{FUTURE[:6]}""{FUTURE[6:]}" $roots $under_usr 2>/dev/null | wc -l)"
echo "roots=$(echo $roots)"
echo "usr=$(stat -c '%d:%i' /usr)"
id=$(grep -m1 -o 'Proposal ids: [0-9]*' "$LANCEBENCH_INSTRUCTION" | grep -o '[0-9]*$')
printf '{{"selected_proposal_id": %s}}' "$id" > answer.json
""")
    agent.chmod(0o755)
    res = lancebench("run", "-d", "swelancer:manager", "--source", str(csv_path), "--repo-path", str(repo),
                     "-a", f"script:{agent}", "-o", str(tmp_path / "jobs"), "--job-name", "probe")
    assert res.returncode == 0, res.stderr[-3000:]
    results = {r.task: r for r in read_results(tmp_path / "jobs" / "probe")}
    assert len(results) == 2
    for i, (row, base) in enumerate(zip(rows, bases, strict=False)):
        r = results[row["question_id"]]
        first_id = int(row["proposals"].split("Proposal: ", 1)[1].split(":", 1)[0])
        assert r.status in ("resolved", "unresolved") and r.choice == first_id, (r.status, r.reason)
        log = (tmp_path / "jobs" / "probe" / "trials" / r.trial_id / "agent" / "script.log").read_text()
        stdout = log.split("--- stdout\n", 1)[1].split("\n--- stderr")[0]
        seen = dict(line.split("=", 1) for line in stdout.splitlines())
        # the tree of the parent of this task's manager_commit, one commit of history, no trace of the fix
        assert seen["pwd"] == "/app" and seen["avatar"] == f"MAX_SIZE = {6291456 + i}" and seen["run"] == "runs"
        assert seen["commits"] == "1" and seen["future"] == "0", seen
        # the /usr left out of that search is the host's own folder, which holds no trace either
        # (the marker exists only in this file and the clone, neither of them under /usr)
        host_usr = Path("/usr").stat()
        assert seen["usr"] == f"{host_usr.st_dev}:{host_usr.st_ino}", seen
        assert {"/app", "/tmp", "/etc", "/home", "/dev"} <= set(seen["roots"].split()), seen
        folder = next(f for f in swelancer.task_folders("manager", csv_path, repo) if f.name == row["question_id"])
        toml = (folder / "task.toml").read_text()
        assert f'rev = "{base}"' in toml and f'repo = "{repo}"' in toml
        instruction = (folder / "instruction.md").read_text()
        assert "no git history" in instruction and "There is no checkout" not in instruction


def test_a_clone_without_the_commits_is_refused_with_the_fix(table_path, clone, tmp_path):
    repo, _, merged = clone
    csv_path, rows = small_table(table_path, tmp_path / "t.csv", [merged[0], "f" * 40])
    with pytest.raises(DatasetError) as err:
        swelancer.task_folders("manager", csv_path, repo)
    msg = str(err.value)
    assert "1 of 2 tasks" in msg and rows[1]["question_id"] in msg and "fetch" in msg
    with pytest.raises(DatasetError, match="not a git repository"):
        swelancer.task_folders("manager", csv_path, tmp_path)
    with pytest.raises(DatasetError, match="takes no --repo-path"):
        from lancebench.datasets.registry import load_dataset
        load_dataset("mini", repo_path=repo)


def test_a_task_folder_alone_cannot_make_the_harness_read_a_repository(clone, tmp_path, monkeypatch):
    """A task.toml naming a repository of this machine that the run was not given builds nothing:
    the trial is invalid (infrastructure: the task is unusable), and the tree never reaches a sandbox."""
    repo, bases, _ = clone
    monkeypatch.delenv("LANCEBENCH_CHECKOUT_REPOS", raising=False)
    task = tmp_path / "sneaky"
    (task / "tests").mkdir(parents=True)
    (task / "instruction.md").write_text("Pick one.\n")
    (task / "tests" / "choice.json").write_text('{"correct_proposal_id": 1}\n')
    (task / "task.toml").write_text(f"""version = "1.0"
[lancebench]
kind = "choice"
price_usd = 1.0
[lancebench.choice]
proposal_ids = [1, 2]
[lancebench.local]
setup = ""
[lancebench.local.checkout]
repo = "{repo}"
rev = "{bases[0]}"
""")
    res = lancebench("run", "-p", str(task), "-a", "nop", "-o", str(tmp_path / "jobs"), "--job-name", "sneaky")
    [r] = read_results(tmp_path / "jobs" / "sneaky")
    assert r.status == "invalid" and "--repo-path" in (r.reason or ""), (r.status, r.reason, res.stderr[-2000:])
