"""Smoke run of every judge with the real local model (SmolLM2-135M served by llama.cpp on
127.0.0.1) on one `mini` task: each score is a number in its range, or the judge says
`failed:<why>` explicitly. Kept cheap: the oracle's patch, 3 model calls and 60 s per
conversation, 160 tokens a reply (7.6 min with 4 calls and 120 s on 2 busy cores)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core"))
from lbtest import REPO, lb  # noqa: E402

TASK = REPO / "src" / "lancebench" / "datasets" / "mini" / "tasks" / "texttable-bool-dtype"
RANGES = {"validation": (0.0, 1.0), "rubric": (0.0, 1.0), "taste": (1.0, 5.0)}


@pytest.mark.llm
@pytest.mark.slow
def test_every_judge_with_the_local_model(tmp_path: Path) -> None:
    jobs = tmp_path / "jobs"
    lb("run", "-p", TASK, "-a", "oracle", "--judge-model", "local", "--judge-max-turns", "3",
       "--judge-max-tokens", "160", "--judge-timeout", "60", "-o", jobs, check=True, timeout=1800)
    (result,) = [json.loads(p.read_text()) for p in jobs.glob("*/trials/*/result.json")]
    judges = result["judges"]
    assert set(judges) == {"validation", "rubric", "taste"}, judges
    for name, rec in judges.items():
        print(name, rec["status"], rec["scores"], rec["turns"], f"{rec['duration_sec']:.0f}s")
        assert rec["model"] == "local" and rec["duration_sec"] > 0
        if rec["status"] == "ok":
            lo, hi = RANGES[name]
            assert rec["scores"] and all(lo <= v <= hi for v in rec["scores"].values()), rec
        else:
            assert rec["status"].startswith("failed:") and rec["scores"] == {}, rec
    # whatever the judges said, the verifier's verdict stands unless validation found a story failing
    assert result["status"] in ("resolved", "unresolved") and result["rewards"]["reward"] == 1.0
    q = result["quality"]
    assert q["thresholds"] == {"taste_min": 3.0} and q["patch_bloat"] == 1.0
