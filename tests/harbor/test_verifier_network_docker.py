"""A verifier that calls a model on the docker backend (issue 14, items 1 and 5): the verifier's
allowlist names its judge, the agent's only a mirror. The scripted OpenAI-compatible server
listens in a container's network namespace on the default bridge (``docker_net_support``), the
judge's name resolves to it through ``LANCEBENCH_ALLOWLIST_DNS``, and its key is filled from the
host via ``${VAR}`` in ``[verifier].env``.

Asserted: the reward; the request the judge got (the key in its header); the key nowhere in the
job folder; the agent's environment holds neither key nor endpoint; the agent, trying the judge by
name and by address, reached neither (the judge saw only the verifier's request).
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


def test_verifier_reaches_its_judge_and_the_agent_reaches_nothing(tmp_path, shared):
    task = shared / "verifier-llm-docker"
    shutil.copytree(TASK, task)
    suffix = tmp_path.name[-8:]
    judge_host, mirror_host = BridgeHost(f"lb-judge-{suffix}"), BridgeHost(f"lb-mirror-{suffix}")
    server = in_netns(judge_host.pid, lambda: ScriptedServer([Reply("PASS")], host="0.0.0.0").start())
    zone = ZoneServer({"judge.lancebench.test": judge_host.ip, "mirror.lancebench.test": mirror_host.ip})
    try:
        (task / "instruction.md").write_text((task / "instruction.md").read_text() +
                                             f"\njudge: judge.lancebench.test {judge_host.ip}:{server.port}\n")
        env = {"LB_JUDGE_BASE_URL": f"http://judge.lancebench.test:{server.port}/v1", "LB_JUDGE_API_KEY": KEY,
               "LANCEBENCH_ALLOWLIST_DNS": zone.address}
        jobs = tmp_path / "jobs"
        lb("run", "-p", task, "-a", agent("probe_judge.sh"), "--backend", "docker", "-o", jobs,
           "--job-name", "j", env=env, check=True)
        sent = list(server.requests)
    finally:
        server.stop()
        zone.close()
        judge_host.close()
        mirror_host.close()
    (r,) = results(jobs / "j")
    assert (r["status"], r["rewards"]) == ("resolved", {"reward": 1.0}), r
    assert len(sent) == 1, sent  # the verifier's request only: the agent's probes never arrived
    assert "'42'" in sent[0]["body"]["messages"][0]["content"]
    assert {k.lower(): v for k, v in sent[0]["headers"].items()}["authorization"] == f"Bearer {KEY}"
    patch = (jobs / "j" / "trials" / r["trial_id"] / "patch.diff").read_text()
    assert f"+judge.lancebench.test unreachable\n+{judge_host.ip} unreachable" in patch, patch
    assert "JUDGE" not in patch and KEY not in patch  # the agent's environment had neither
    assert "judge.lancebench.test" in zone.asked  # the verifier resolved its judge through the filter
    test_log = next((jobs / "j").rglob("test.log")).read_text()
    assert "with key ***" in test_log and "verdict: PASS" in test_log
    leaked = [p for p in (jobs / "j").rglob("*") if p.is_file() and KEY.encode() in p.read_bytes()]
    assert leaked == []
