"""The README's one-line commands are the ones that run: CI (.ci/run) runs the README's test line
verbatim, the set-up script knows both targets the README names, and every extra in
pyproject.toml is documented in the README (issue 13)."""

from __future__ import annotations

import re
import subprocess
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text()


def _first_command_after(heading: str) -> str:
    section = README[README.index(heading):]
    return re.search(r"```bash\n(.+?)\n```", section, re.S).group(1).strip()


def test_ci_runs_the_readme_test_line():
    line = _first_command_after("## Test")
    assert "\n" not in line and "pytest" in line
    # .ci/run runs the line's two commands in turn, the tests only after the set-up succeeded (it
    # starts the parts that run beside the tests in between)
    setup, tests = line.split(" && ")
    ci = [ln.strip() for ln in (REPO / ".ci" / "run").read_text().splitlines()]
    assert f"{setup} || exit $?" in ci and tests in ci
    assert ci.index(f"{setup} || exit $?") < ci.index(tests)


def test_the_setup_script_has_the_targets_the_readme_uses():
    lines = [_first_command_after("## Set up and run the main job"), _first_command_after("## Test")]
    targets = [re.match(r"bash scripts/setup\.sh (\w+) && ", line).group(1) for line in lines]
    assert targets == ["main", "tests"]
    script = REPO / "scripts" / "setup.sh"
    assert subprocess.run(["bash", "-n", script]).returncode == 0
    bad = subprocess.run(["bash", script, "nonsense"], capture_output=True, text=True)
    assert bad.returncode == 2 and "usage" in bad.stderr
    assert "lancebench run -d mini -m local" in lines[0]


def test_every_extra_is_documented():
    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    table = README[README.index("## Extras"):]
    for name in extras:
        assert f"| `{name}` |" in table, name


def test_the_documented_job_file_reads_as_documented(tmp_path):
    """docs/cli.md's job file: oracle once (no model), mini-swe-agent once per model; a flag overrides."""
    from lancebench.commands.settings import read_job_file
    doc = (REPO / "docs" / "cli.md").read_text()
    text = re.search(r"```yaml\n(.+?)\n```", doc, re.S).group(1)
    (tmp_path / "job.yaml").write_text(text)
    jobs = [s for _, s in read_job_file(tmp_path / "job.yaml", {"attempts": 1})]
    assert [(s.agent, s.model) for s in jobs] == [("oracle", None), ("mini-swe-agent", "local"),
                                                   ("mini-swe-agent", "openai/gpt-4o-mini")]
    assert {s.attempts for s in jobs} == {1} and {s.concurrency for s in jobs} == {2}
    assert jobs[1].max_steps == 20 and jobs[1].agent_options == {"temperature": 0} and jobs[1].max_cost == 1.0
    assert jobs[0].dataset == "mini" and jobs[0].task == ["*-manager"] and jobs[0].limit == 10
