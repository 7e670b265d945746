"""Trajectories across Harbor and lancebench (issue 14, item 8): lancebench's trajectory.json
validates under Harbor 0.25's own ATIF model, and a newer ATIF version (Harbor writes v1.8, with
fields lancebench does not know) loads in lancebench."""

from __future__ import annotations

import json
import subprocess

import pytest
from harbor_support import harbor_python

from lancebench.agents.trajectory import Metrics, TrajectoryBuilder, read_trajectory, write_trajectory


def _trajectory(tmp_path):
    b = TrajectoryBuilder("mini-swe-agent", "1.0", "openai/x")
    b.system("be useful")
    b.user("fix it")
    s = b.agent_step("look", commands=[("c1", "ls")], metrics=Metrics(prompt_tokens=10, completion_tokens=2,
                                                                      cached_tokens=4, cost_usd=0.5))
    b.observe(s, "a.py", call_id="c1")
    b.agent_step("done", metrics=Metrics(prompt_tokens=20, completion_tokens=3, cost_usd=0.25))
    return write_trajectory(b.finish(extra={"exit_status": "Submitted"}), tmp_path)


@pytest.mark.skipif(harbor_python() is None, reason="no Python >= 3.12 with harbor 0.25 (set LANCEBENCH_HARBOR_PYTHON)")
def test_lancebench_trajectory_validates_under_harbors_model(tmp_path):
    path = _trajectory(tmp_path)
    probe = ("import sys; from harbor.models.trajectories.trajectory import Trajectory; "
             "t = Trajectory.model_validate_json(open(sys.argv[1]).read()); "
             "print(t.schema_version, len(t.steps), t.final_metrics.total_prompt_tokens)")
    proc = subprocess.run([harbor_python(), "-c", probe, str(path)], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split() == ["ATIF-v1.4", "4", "30"]


def test_newer_atif_version_loads(tmp_path):
    path = _trajectory(tmp_path)
    data = json.loads(path.read_text())
    data["schema_version"] = "ATIF-v1.8"
    data["trajectory_id"] = "t-1"  # v1.8 fields lancebench does not define
    data["steps"][2]["llm_call_count"] = 1
    data["steps"][2]["metrics"]["prompt_token_ids"] = [1, 2, 3]
    data["steps"][2]["extra"] = {"kept": True}
    path.write_text(json.dumps(data))
    t = read_trajectory(path)
    assert t.schema_version == "ATIF-v1.8" and len(t.steps) == 4
    assert t.steps[2].extra == {"kept": True}
    assert (t.usage().input_tokens, t.usage().output_tokens, t.usage().cost_usd) == (30, 5, pytest.approx(0.75))


def test_our_own_version_stays_strict(tmp_path):
    from pydantic import ValidationError
    path = _trajectory(tmp_path)
    data = json.loads(path.read_text())
    data["steps"][0]["typo_field"] = 1
    path.write_text(json.dumps(data))
    with pytest.raises(ValidationError, match="extra"):
        read_trajectory(path)
