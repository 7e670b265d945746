"""A seeded fuzz over every command that prints or renders agent text: trials whose reasons, file
names, patches, trajectories, logs and findings hold terminal escapes, control characters,
bidirectional overrides and bytes that are not UTF-8. `show`, `show --trial`, `report`,
`report --html` and `analyze` exit 0 and never write a control character (a terminal escape never
reaches the terminal) or invalid UTF-8; `predictions` -> `grade` (a real bubblewrap trial) keeps
such a patch byte for byte."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lancebench.agents.trajectory import AgentInfo, Observation, ObservationResult, Step, ToolCall, Trajectory
from lancebench.cli import app
from lancebench.report.html.site import trial_html
from lancebench.results.models import JobConfig, TrialResult

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core"))
from lbtest import TASKS, lb, results  # noqa: E402

SEED = 2026
ATOMS = ["\x1b[2J", "\x1b]0;pwned\x07", "\x1b]52;c;ZXZpbA==\x07", "\r", "\x08\x08", "\x9b31m", "\u202eevil\u202c",
         "\x00", "\udcff", "\udc80", "\x7f", "\t", "ok", "/tests/test_x.py", "<script>alert(1)</script>", "`` ` ``"]
BAD_BYTES = [b"\xff", b"\xc3(", b"\xed\xa0\x80", b"\x1b[31m", b"\x9b", b"\r", b"\x00"]


def hostile(rng: random.Random, n: int = 4) -> str:
    return "".join(rng.choice(ATOMS) for _ in range(n))


def hostile_bytes(rng: random.Random, n: int = 4) -> bytes:
    return b"".join(rng.choice(BAD_BYTES) + rng.choice([b"a", b"/b", b".py"]) for _ in range(n))


def file_diff(name: bytes, content: bytes) -> bytes:
    return (b"diff --git a/" + name + b" b/" + name + b"\nnew file mode 100644\n--- /dev/null\n+++ b/" + name
            + b"\n@@ -0,0 +1 @@\n+" + content + b"\n")


def trajectory(rng: random.Random) -> str:
    steps = [Step(step_id=1, source="user", message=hostile(rng)),
             Step(step_id=2, source="agent", message=hostile(rng), tool_calls=[
                 ToolCall(tool_call_id="c1", function_name="bash",
                          arguments={"command": f"cat /tests/{hostile(rng, 2)}; rm -rf tests {hostile(rng, 2)}"})],
                  observation=Observation(results=[ObservationResult(source_call_id="c1", content=hostile(rng, 8))]))]
    t = Trajectory(session_id=hostile(rng, 2), agent=AgentInfo(name="mini", version="1"), steps=steps)
    return json.dumps(t.model_dump(mode="json"))  # lone surrogates as JSON escapes, as a hostile agent may write


def write_hostile_job(root: Path, rng: random.Random, trials: int = 4) -> Path:
    job = root / "jobs" / "hostile"
    (job / "trials").mkdir(parents=True)
    (job / "job.json").write_text(JobConfig(name="hostile", agent="mini", model="m1").model_dump_json())
    for n in range(trials):
        r = TrialResult(trial_id=f"t{n}", job="hostile", task=f"calc{hostile(rng, 2)}", task_digest="d", agent="mini",
                        model="m1", attempt=0, status=rng.choice(["resolved", "unresolved", "invalid"]),
                        reason=hostile(rng, 6), dropped_paths=[f"tests/{hostile(rng, 2)}"],
                        rewards={"reward": 1.0}, extra={"scan_findings": [hostile(rng, 3)]})
        d = job / "trials" / r.trial_id
        (d / "agent").mkdir(parents=True)
        (d / "verifier" / "run-0").mkdir(parents=True)
        (d / "result.json").write_text(json.dumps(r.model_dump(mode="json")))
        (d / "patch.diff").write_bytes(file_diff(hostile_bytes(rng), hostile_bytes(rng, 8))
                                       + file_diff(hostile(rng).encode("utf-8", "surrogateescape"), b"x"))
        (d / "agent" / "trajectory.json").write_text(trajectory(rng))
        (d / "verifier" / "run-0" / "test_output.log").write_bytes(hostile_bytes(rng, 20))
        (d / "verifier" / "run-0" / "test.log").write_bytes(b"exit code: 4\n" + hostile_bytes(rng, 20))  # show --trial
        (d / "instruction.md").write_bytes(hostile_bytes(rng, 5))
    return job


def assert_clean(data: bytes, where: str) -> None:
    text = data.decode("utf-8")  # raises on bytes that are not UTF-8
    bad = sorted({f"U+{ord(c):04X}" for c in text if (ord(c) < 0x20 and c not in "\n\t") or 0x7F <= ord(c) < 0xA0
                  or 0x202A <= ord(c) <= 0x202E})
    assert not bad, f"{where} wrote control characters {bad}"


def test_every_view_survives_hostile_names_and_bytes(tmp_path: Path) -> None:
    job = write_hostile_job(tmp_path, random.Random(SEED))
    commands = [("show", job), *[("show", job, "--trial", f"t{n}") for n in range(4)], ("report", job),
                ("analyze", job), ("report", job, "--html", tmp_path / "site")]
    runner = CliRunner()  # in process (the command line's own app), to keep the test cheap
    tails = 0
    for args in commands:
        proc = runner.invoke(app, [str(a) for a in args])
        assert proc.exit_code == 0, (args, proc.output[-2000:], proc.exception)
        assert_clean(proc.stdout_bytes, f"{args} stdout")
        assert_clean(proc.stderr_bytes, f"{args} stderr")
        tails += "the test runner's output" in proc.stderr
    assert tails == sum(r["status"] != "resolved" for r in results(job)) > 0  # the runner's log was shown
    pages = sorted((tmp_path / "site").rglob("*.html")) + sorted((tmp_path / "site" / "trials").rglob("*.js"))
    assert len(pages) == 3  # the index, the trial page, the one data file of the job's 4 trials
    for page in pages:
        assert_clean(page.read_bytes(), str(page))
    for n in range(4):
        assert_clean(trial_html(tmp_path / "site", f"trial.html?t=hostile/0/t{n}").encode(), f"trial t{n}")
    trial = trial_html(tmp_path / "site", "trial.html?t=hostile/0/t0")
    assert "<script>alert" not in trial and "␛[2J" in trial  # escaped markup, escapes shown as ␛


@pytest.mark.slow
def test_predictions_to_grade_keeps_hostile_patch_bytes(tmp_path: Path) -> None:
    rng = random.Random(SEED + 1)
    name, content = b"data/evil" + hostile_bytes(rng, 2).replace(b"/", b"_").replace(b"\x00", b"0"), b"\xff\xfe \x1b[2J"
    repo = tmp_path / "repo"
    shutil.copytree(TASKS / "calc" / "environment" / "repo", repo)
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git[:3], "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "base"], check=True)
    (repo / "data").mkdir()
    (repo / "data" / name[len(b"data/"):].decode("utf-8", "surrogateescape")).write_bytes(content + b"\n")
    subprocess.run([*git, "add", "-A"], check=True)
    patch = subprocess.run([*git, "diff", "--cached", "--no-renames", "--binary", "--no-color"], check=True,
                           capture_output=True).stdout
    assert b"\\377" in patch or b"\xff" in patch  # the name is not UTF-8
    job = tmp_path / "jobs" / "given"
    (job / "trials" / "t0").mkdir(parents=True)
    (job / "job.json").write_text(JobConfig(name="given", agent="mini", model="m1").model_dump_json())
    r = TrialResult(trial_id="t0", job="given", task="calc", task_digest="d", agent="mini", model="m1", attempt=0,
                    status="unresolved")
    (job / "trials" / "t0" / "result.json").write_text(r.model_dump_json())
    (job / "trials" / "t0" / "patch.diff").write_bytes(patch)
    preds = tmp_path / "preds.jsonl"
    lb("predictions", job, "-o", preds, check=True)
    lb("grade", "-p", TASKS / "calc", "--predictions", preds, "-o", tmp_path / "graded", check=True)
    graded = next((tmp_path / "graded").iterdir())
    [result] = results(graded)
    assert (graded / "trials" / result["trial_id"] / "patch.diff").read_bytes() == patch
    assert json.loads(preds.read_text())["model_patch"].encode("utf-8", "surrogateescape") == patch
