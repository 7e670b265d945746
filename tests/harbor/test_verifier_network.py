"""A verifier that calls a model (issue 14, item 5): the verifier declares a network and gets one
in its fresh grading sandbox; the key filled into its env from the host never reaches the agent,
the job folder or the logs. Runs on the local backend, where the grading sandbox has outbound
access only (slirp4netns): the scripted OpenAI-compatible server listens on one of the host's
other addresses, as a remote judge would (the host's 127.0.0.1 is out of reach)."""

from __future__ import annotations

import sys
from pathlib import Path

from harbor_support import FIXTURES
from lbtest import agent, host_address, lb, results

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "llm"))
from scripted_server import Reply, ScriptedServer  # noqa: E402

TASK = FIXTURES / "verifier-llm"
KEY = "sk-lancebench-test-0123456789"


def test_verifier_reaches_its_model_and_the_key_stays_out_of_the_job(tmp_path):
    jobs = tmp_path / "jobs"
    address = host_address()
    with ScriptedServer([Reply("PASS")], host=address) as server:
        env = {"LB_JUDGE_BASE_URL": f"http://{address}:{server.port}/v1", "LB_JUDGE_API_KEY": KEY}
        lb("run", "-p", TASK, "-a", agent("dump_env.sh"), "-o", jobs, "--job-name", "j", env=env, check=True)
        sent = server.requests
    (r,) = results(jobs / "j")
    assert (r["status"], r["rewards"]) == ("resolved", {"reward": 1.0}), r
    assert len(sent) == 1 and "'42'" in sent[0]["body"]["messages"][0]["content"]  # the verifier asked the model
    assert {k.lower(): v for k, v in sent[0]["headers"].items()}["authorization"] == f"Bearer {KEY}"
    patch = (jobs / "j" / "trials" / r["trial_id"] / "patch.diff").read_text()
    assert "env.txt" in patch and "JUDGE" not in patch  # the agent saw neither the key nor the endpoint
    test_log = next((jobs / "j").rglob("test.log")).read_text()
    assert "with key ***" in test_log  # the verifier printed it; the harness masked it
    leaked = [p for p in (jobs / "j").rglob("*") if p.is_file() and KEY.encode() in p.read_bytes()]
    assert leaked == []


def test_without_the_network_the_verifier_cannot_reach_it(tmp_path, shared):
    import shutil
    task = shared / "no-net"
    shutil.copytree(TASK, task)
    toml = task / "task.toml"
    toml.write_text(toml.read_text().replace('network_mode = "public"\n', ""))
    jobs = tmp_path / "jobs"
    address = host_address()
    with ScriptedServer([Reply("PASS")], host=address) as server:
        env = {"LB_JUDGE_BASE_URL": f"http://{address}:{server.port}/v1", "LB_JUDGE_API_KEY": KEY}
        lb("run", "-p", task, "-a", "oracle", "-o", jobs, "--job-name", "j", env=env)
        assert server.requests == []
    (r,) = results(jobs / "j")
    assert r["status"] != "resolved", r
