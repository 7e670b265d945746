"""Each agent's invalid rate, and the warning when it stands out (issue 12: an agent that makes
its hard trials invalid would otherwise be scored on its easy ones only)."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from lancebench.metrics import summarize


def test_invalid_rate_and_its_warning_in_the_summary(trial):
    rs = [trial("a", "resolved"), trial("b", "invalid"), trial("c", "unresolved"), trial("d", "invalid")]
    m = summarize(rs)
    assert m["invalid_rate"] == 2 / 4
    assert [n for n in m["notes"] if n.startswith("warning: invalid rate 50% (2 of 4 trials)")]
    quiet = summarize([trial(t, "resolved") for t in "abcdefghijk"] + [trial("l", "invalid")])  # 1 of 12 < 10 %
    assert quiet["invalid_rate"] == 1 / 12
    assert not [n for n in quiet["notes"] if n.startswith("warning: invalid rate")]


def test_report_flags_the_agent_whose_invalid_rate_stands_out(tmp_path, trial, job_writer):
    """Agent x: 1 invalid in 12 (8 %, under the absolute threshold) against 0 of 12 for y: x
    stands out (at least 5 points and twice the others'); y does not."""
    import typer

    from lancebench.commands.report import register
    x = [trial(f"t{i}", "invalid" if i == 0 else "resolved", job="jx") for i in range(12)]
    y = [trial(f"t{i}", "resolved", job="jy", agent="y") for i in range(12)]
    app = typer.Typer()

    @app.callback()
    def _group() -> None:
        """lancebench"""

    register(app)
    jobs = [job_writer(tmp_path, "jx", x), job_writer(tmp_path, "jy", y)]
    res = CliRunner().invoke(app, ["report", *map(str, jobs), "--format", "json", "--bootstrap", "50"])
    assert res.exit_code == 0, res.output
    rows = {r["agent"]: r for r in json.loads(res.stdout)["rows"]}
    assert rows["y"]["invalid_rate"] == 0.0
    assert not [n for n in rows["y"]["notes"] if "invalid rate" in n]
    assert rows["mini"]["invalid_rate"] == 1 / 12
    flagged = [n for n in rows["mini"]["notes"] if n.startswith("warning: invalid rate 8%")]
    assert flagged and "against 0% for the other rows" in flagged[0], rows["mini"]["notes"]


def test_show_prints_the_invalid_rate_and_the_warning(tmp_path, trial, job_writer):
    import os
    import subprocess
    import sys
    from pathlib import Path
    job = job_writer(tmp_path, "jw", [trial("a", "resolved"), trial("b", "invalid"), trial("c", "unresolved")])
    exe = Path(sys.executable).parent / "lancebench"
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "lancebench.cli"]
    proc = subprocess.run([*cmd, "show", str(job)], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, COLUMNS="300", NO_COLOR="1"))
    assert proc.returncode == 0, proc.stderr
    assert "invalid_rate=33.3%" in proc.stdout
    assert "warning: invalid rate 33% (1 of 3 trials)" in proc.stdout
