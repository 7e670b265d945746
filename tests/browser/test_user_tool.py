"""The user tool (SWE-Lancer): the agent runs ``user-tool`` in its sandbox and gets only the trace
of the hidden browser test (actions, screenshots, DOM snapshots) under user_tool/output_<n>/:
never pass/fail, never the test's source or its assertion messages; the tests stay hidden."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lancebench.grading.user_tool import scrub, secret_lines

REPO = Path(__file__).resolve().parents[2]
MINI = REPO / "src" / "lancebench" / "datasets" / "mini" / "tasks"
INVOICE = MINI / "invoice-app-tax-rounding"
AGENT = Path(__file__).parent / "agents" / "user_tool_agent.sh"


def lancebench(*args) -> subprocess.CompletedProcess:
    exe = Path(sys.executable).parent / "lancebench"
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "lancebench.cli"]
    proc = subprocess.run([*cmd, *map(str, args)], capture_output=True, text=True, timeout=900, cwd=REPO,
                          env=dict(os.environ, COLUMNS="300", NO_COLOR="1"))
    assert proc.returncode == 0, f"exit {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


def sections(log: str) -> dict[str, str]:
    out, name = {}, None
    for line in log.splitlines():
        if line.startswith("== "):
            name = line[3:].strip()
            out[name] = ""
        elif name:
            out[name] += line + "\n"
    return out


def assertion_messages(test_file: Path) -> list[str]:
    """The string messages of the test's ``assert ..., "message"`` statements."""
    found = [n.msg.value for n in ast.walk(ast.parse(test_file.read_text()))
             if isinstance(n, ast.Assert) and isinstance(n.msg, ast.Constant)]
    assert found, "the fixture test should carry assertion messages"
    return found


def test_secret_lines_and_scrub(tmp_path):
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "test_x.py").write_text('def test_a(page):\n    assert page.title() == "Shop", "the title must be Shop, '
                                     'not Shoop"\n'
                                     '    x = 1\n')
    secrets = secret_lines(tests)
    assert "the title must be Shop, not Shoop" in secrets
    assert "x = 1" not in secrets  # short lines are not secrets
    out = tmp_path / "out"
    out.mkdir()
    (out / "actions.log").write_text("step 0001 Page.goto('http://127.0.0.1:1/')\n")
    from PIL import Image
    Image.new("RGB", (4, 3), (200, 10, 10)).save(out / "0001-goto.png")
    with open(out / "0001-goto.png", "ab") as fh:  # the hidden test smuggled after the image's end
        fh.write(b"the title must be Shop, not Shoop")
    (out / "0002-goto.png").write_bytes(b"\x89PNG\r\n\x1a\nrest")  # a PNG only by its name and magic
    (out / "0001-goto.html").write_text("<html><body>the title must be Shop, not Shoop</body></html>")  # leaked
    (out / "0002-click.html").write_text("<html><body>ok</body></html>")
    (out / "junit.xml").write_text("<testsuite failures='1'/>")
    (out / "reward.txt").write_text("0")
    (out / "0003-click.png").symlink_to("/etc/passwd")
    (out / "sub").mkdir()
    (out / "0004-click.html").write_text("import calc\n")  # not HTML
    removed = scrub(out, secrets)
    assert removed == ["0001-goto.html", "0002-goto.png", "0004-click.html"]
    assert sorted(p.name for p in out.iterdir()) == ["0001-goto.png", "0002-click.html", "actions.log"]
    png = (out / "0001-goto.png").read_bytes()
    assert b"Shoop" not in png and png.endswith(b"IEND\xaeB`\x82")  # re-encoded: nothing after the image
    assert Image.open(out / "0001-goto.png").getpixel((1, 1)) == (200, 10, 10)


@pytest.mark.browser
@pytest.mark.slow
def test_user_tool_returns_only_the_trace(jobs):
    lancebench("run", "-p", INVOICE, "-a", f"script:{AGENT}", "-o", jobs)
    trial = next((jobs).glob("*/trials/*"))
    result = json.loads((trial / "result.json").read_text())
    log = (trial / "agent" / "script.log").read_text()
    s = sections(log)

    assert s["path"].strip() == "/opt/lancebench/bin/user-tool"
    assert "responses read-only" in s["tamper"]
    # the tool ran and said where its output is, without a verdict
    assert "exit=0" in s["run1"], log
    assert "user_tool/output_1/" in s["run1"]
    for word in ("pass", "fail", "error", "reward", "assert"):
        assert word not in s["run1"].lower() and word not in s["run2"].lower(), (word, s["run1"])
    # screenshots (real PNG files) and DOM snapshots (HTML), plus the action log, and nothing else
    files = s["files"].split()
    assert "actions.log" in files
    pngs = [f for f in files if f.endswith(".png")]
    htmls = [f for f in files if f.endswith(".html")]
    assert len(pngs) >= 7 and len(htmls) >= 7, files
    assert set(files) == {"actions.log", *pngs, *htmls}
    assert s["png"].split() == ["89", "50", "4e", "47", "0d", "0a", "1a", "0a"]
    text = s["text"]
    assert "Page.fill('#line-price', '10.00')" in text and "Page.select_option('#tax-rate', '8.25')" in text
    assert "Tally Invoices" in text and "<table" in text  # DOM snapshots of the app
    # no assertion text, no test source, no verdict
    test_file = INVOICE / "tests" / "test_e2e.py"
    for message in assertion_messages(test_file):
        assert message not in text, message
    for line in test_file.read_text().splitlines():
        if len(line.strip()) >= 24:
            assert line.strip() not in text, line
    for marker in ("test_tax_half_cent_rounds_up", "AssertionError", "passed", "failed", "junit", "reward"):
        assert marker not in text, marker
    # the tests stay absent from the agent's sandbox
    assert [line.endswith("No such file or directory") for line in s["tests"].splitlines()] == [True] * 3, s["tests"]
    assert s["found"].strip() == "", s["found"]
    # a second call makes a second folder; the agent owns them
    assert "exit=0" in s["run2"] and "user_tool/output_2/" in s["run2"]
    assert s["listing"].split() == ["output_1", "output_2"]
    assert "output removable" in s["owner"]
    # user_tool/ never reaches the patch, and the trial is graded as usual (unchanged code: unresolved)
    assert (trial / "patch.diff").read_text() == ""
    assert result["dropped_paths"] == [] and result["status"] == "unresolved"
    # the harness keeps its own record (with the verdict) outside the agent's reach
    records = [json.loads(x) for x in (trial / "agent" / "user_tool.jsonl").read_text().splitlines()]
    assert [r["n"] for r in records] == [1, 2] and all(r["outcome"] == "ok" for r in records)
    assert all(r["reward"] == 0.0 for r in records)
