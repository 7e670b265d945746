"""Whole runs of the 265 real manager tasks through the real harness (``lancebench run`` in a
subprocess, bubblewrap sandboxes): the seeded random baseline against its exact expectation, a
probe of everything an agent can see, and a scripted model over HTTP answering a fixed id."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lancebench.results.store import read_results

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "llm"))
from scripted_server import Reply, ScriptedServer  # noqa: E402

pytestmark = pytest.mark.slow


def lancebench(*args: str, timeout: float = 900, extra_path: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if extra_path:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(extra_path), env.get("PYTHONPATH", "")) if p)
    return subprocess.run([sys.executable, "-c", "from lancebench.cli import main; main()", *args],
                          capture_output=True, text=True, timeout=timeout, env=env)


def test_seeded_random_agent_lands_near_its_exact_expectation(table_path, raw_managers, tmp_path):
    # the exact expectation, from the proposal counts the raw table shows (not from the adapter)
    p = {q: 1.0 / len(m.text_ids) for q, m in raw_managers.items()}
    mean_tasks = sum(p.values())
    sd_tasks = math.sqrt(sum(x * (1 - x) for x in p.values()))
    mean_usd = sum(raw_managers[q].price * x for q, x in p.items())
    sd_usd = math.sqrt(sum(raw_managers[q].price ** 2 * x * (1 - x) for q, x in p.items()))
    assert round(mean_tasks, 2) == 70.85 and round(sd_tasks, 1) == 6.9 and round(mean_usd, 1) == 72_531.5

    t0 = time.monotonic()
    res = lancebench("run", "-d", "swelancer:manager", "--source", str(table_path), "-a", "random", "-n", "2",
                     "--seed", "7", "-o", str(tmp_path), "--job-name", "random")
    wall = time.monotonic() - t0
    assert res.returncode == 0, res.stderr[-3000:]
    results = read_results(tmp_path / "random")
    assert len(results) == 265 and all(r.status != "invalid" for r in results)
    resolved = [r for r in results if r.status == "resolved"]
    for r in results:  # every pick is one of the task's own proposals, graded against the table
        assert r.choice in raw_managers[r.task].text_ids
        assert (r.status == "resolved") == (r.choice == raw_managers[r.task].correct)
    earned = sum(raw_managers[r.task].price for r in resolved)
    assert abs(len(resolved) - mean_tasks) <= 4 * sd_tasks, (len(resolved), mean_tasks)
    assert abs(earned - mean_usd) <= 4 * sd_usd, (earned, mean_usd)
    summary = json.loads((tmp_path / "random" / "summary.json").read_text())
    assert summary["resolved"] == len(resolved) and summary["earned_usd"] == earned
    assert summary["available_usd"] == 264_500.0 and summary["pass_at_1"] == pytest.approx(len(resolved) / 265)
    from lancebench.report.swelancer import variant_breakdown
    by_variant = variant_breakdown(results)
    assert list(by_variant) == ["swe_manager", "total"]
    assert by_variant["swe_manager"]["earned_usd"] == earned and by_variant["total"]["resolved"] == len(resolved)
    print(f"random agent, 265 tasks, -n 2: {wall:.1f}s wall, {len(resolved)} resolved, ${earned:,.0f}")


def test_nothing_of_the_answer_is_visible_to_an_agent(table_path, raw_managers, tmp_path):
    # every manager task's workspace is the same empty repository, so a sample stands for all (the
    # instructions of all 265 are checked in test_swelancer_table): the task whose proposals quote the
    # approval URL, the two without one, one with gapped ids, and a spread of others
    sample = ["24263-manager-0", "29115-manager-0", *sorted(q for q, m in raw_managers.items() if not m.approval_url),
              *sorted(raw_managers)[::40]]
    globs = [a for q in sample for a in ("-t", q)]
    res = lancebench("run", "-d", "swelancer:manager", "--source", str(table_path), "-a", "swelancer_probe:LeakProbe",
                     *globs, "-n", "2", "-o", str(tmp_path), "--job-name", "probe", extra_path=HERE)
    assert res.returncode == 0, res.stderr[-3000:]
    results = read_results(tmp_path / "probe")
    assert sorted(r.task for r in results) == sorted(set(sample))
    for r in results:
        assert r.status != "invalid", r.reason
        seen = (tmp_path / "probe" / "trials" / r.trial_id / "agent" / "seen.txt").read_text(errors="replace")
        raw = raw_managers[r.task]
        assert "== file " in seen and "== git" in seen  # the probe did look
        for marker in (raw.approval_url, raw.explanation, "correct_proposal", "manager_data", "choice.json",
                       "solve.sh", f"selected_proposal_id\": {raw.correct}"):
            if marker:
                assert marker not in seen, (r.task, marker)
        files = [line[8:] for line in seen.splitlines() if line.startswith("== file ")]
        assert not [f for f in files if "/tests/" in f or "/solution/" in f or f.endswith("task.toml")], files


def test_a_scripted_model_answering_a_fixed_id_gets_what_the_table_implies(table_path, raw_managers, tmp_path):
    fixed = 0
    implied = sum(m.correct == fixed for m in raw_managers.values())
    not_offered = sum(fixed not in m.text_ids for m in raw_managers.values())
    reply = Reply(f"I choose proposal {fixed}.\n\n```bash\necho LANCEBENCH_SUBMIT && "
                  f"echo '{{\"selected_proposal_id\": {fixed}}}' > answer.json\n```",
                  prompt_tokens=1000, completion_tokens=10)
    with ScriptedServer([reply] * 300) as srv:  # a few more than 265: the harness may check the model first
        res = lancebench("run", "-d", "swelancer:manager", "--source", str(table_path), "-a", "mini-swe-agent",
                         "-m", "openai/scripted", "--api-base", srv.api_base, "-n", "2", "-o", str(tmp_path),
                         "--job-name", "scripted")
        requests = [r for r in srv.requests if "Pick the proposal to accept" in json.dumps(r["body"]["messages"])]
    assert res.returncode == 0, res.stderr[-3000:]
    results = read_results(tmp_path / "scripted")
    assert len(results) == 265 and len(requests) == 265  # one model reply per task
    assert [r.status for r in results].count("invalid") == 0
    assert sum(r.status == "resolved" for r in results) == implied
    assert sum("not one of the proposals" in (r.reason or "") for r in results) == not_offered
    # what the model was sent holds no marker of any task's right answer
    sent = "\n".join(json.dumps(req["body"]["messages"], ensure_ascii=False) for req in requests)
    for raw in raw_managers.values():
        for marker in (raw.approval_url, raw.explanation):
            if marker:
                assert marker not in sent, (raw.question_id, marker)
    assert "correct_proposal" not in sent and "manager_data" not in sent
