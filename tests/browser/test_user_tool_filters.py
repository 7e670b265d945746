"""The user tool's filter, end to end without a browser (fast): a verifier that writes, in the
traced run, a leak of every kind next to legitimate trace files. Only the trace files reach the
agent: no JUnit report, no reward, no symlink, no snapshot quoting the hidden test, no file that is not
what its name claims (a PNG header alone is not an image)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

TASK_TOML = """version = "1.0"
[verifier]
timeout_sec = 120
[agent]
timeout_sec = 120
[lancebench]
browser = true
protect = ["user_tool/**"]
[lancebench.local]
setup = "setup.sh"
"""
SETUP = "#!/bin/bash\nset -e\necho 'print(1)' > /app/app.py\n"
HIDDEN_TEST = 'def test_total():\n    total = 41\n    assert total == 42, "the total must be 42 dollars exactly"\n'
TEST_SH = r"""#!/bin/bash
PNG_1PX=iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==
mkdir -p /logs/verifier
if [ -n "${LANCEBENCH_TRACE_DIR:-}" ]; then
  t=$LANCEBENCH_TRACE_DIR
  echo "step 0001 Page.goto('http://127.0.0.1:1/')" > "$t/actions.log"
  echo "$PNG_1PX" | base64 -d > "$t/0001-goto.png"
  printf '\x89PNG\r\n\x1a\n' > "$t/0006-click.png"
  echo "<html><body>fine</body></html>" > "$t/0001-goto.html"
  echo "<html><body>the total must be 42 dollars exactly</body></html>" > "$t/0002-click.html"
  cp /tests/test_hidden.py "$t/0003-click.html"
  ln -s /tests/test_hidden.py "$t/0004-click.html"
  echo '<testsuite failures="1"/>' > "$t/junit.xml"
  echo 0 > "$t/reward.txt"
  mkdir "$t/0005-click.png"
fi
echo 0 > /logs/verifier/reward.txt
"""
AGENT = """#!/bin/bash
user-tool; echo "exit=$?"
echo "== files"; ls -A user_tool/output_1
echo "== html"; cat user_tool/output_1/*.html
"""


@pytest.fixture
def task_dir():
    base = Path(tempfile.mkdtemp(prefix="lancebench-ut-", dir="/var/tmp"))  # reachable by the sandbox uid
    os.chmod(base, 0o755)
    task = base / "ut-filter"
    for rel, text in {"task.toml": TASK_TOML, "instruction.md": "Make the total 42.\n", "environment/setup.sh": SETUP,
                      "tests/test_hidden.py": HIDDEN_TEST, "tests/test.sh": TEST_SH, "agent.sh": AGENT}.items():
        (task / rel).parent.mkdir(parents=True, exist_ok=True)
        (task / rel).write_text(text)
    yield task
    shutil.rmtree(base, ignore_errors=True)


def test_only_trace_files_reach_the_agent(task_dir, tmp_path):
    exe = Path(sys.executable).parent / "lancebench"
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "lancebench.cli"]
    proc = subprocess.run([*cmd, "run", "-p", str(task_dir), "-a", f"script:{task_dir / 'agent.sh'}", "-o",
                           str(tmp_path)], capture_output=True, text=True, timeout=600, cwd=REPO,
                          env=dict(os.environ, COLUMNS="300", NO_COLOR="1"))
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    (trial,) = list(tmp_path.glob("*/trials/*"))
    log = (trial / "agent" / "script.log").read_text()
    assert "exit=0" in log and "3 snapshot(s) withheld" in log, log
    files = log.split("== files\n")[1].split("== html")[0].split()
    assert files == ["0001-goto.html", "0001-goto.png", "actions.log"], log
    html = log.split("== html\n")[1]
    assert "fine" in html and "42 dollars" not in html and "def test_total" not in html
    records = [json.loads(x) for x in (trial / "agent" / "user_tool.jsonl").read_text().splitlines()]
    assert records[0]["removed"] == ["0002-click.html", "0003-click.html", "0006-click.png"]  # quoted; not a PNG
    assert (trial / "patch.diff").read_text() == ""
