"""A Terminal-Bench-style Harbor task (issue 22): it declares no network, and its tests/test.sh
installs its test runner from PyPI when it runs. Harbor gives such a verifier the network, so
lancebench does too (the agent keeps none); before, the install failed, the oracle was
unresolved and the agent would have been blamed."""

from __future__ import annotations

import pytest
from docker_support import docker_skip_reason
from harbor_support import FIXTURES
from lbtest import lb, results

pytest.importorskip("docker", reason="the Docker SDK is missing: pip install 'lancebench[docker]'")
_REASON = docker_skip_reason()
pytestmark = [pytest.mark.docker, pytest.mark.slow, pytest.mark.skipif(_REASON is not None, reason=_REASON or "")]
TASK = FIXTURES / "tb-install-runner"


def test_the_oracle_resolves_a_task_whose_verifier_installs_its_runner(tmp_path):
    jobs = tmp_path / "jobs"
    lb("run", "-p", TASK, "-a", "oracle", "--backend", "docker", "-o", jobs, "--job-name", "j", check=True)
    (r,) = results(jobs / "j")
    assert (r["status"], r["rewards"]) == ("resolved", {"reward": 1.0}), r
    assert r["tests"] == {} or all(v == "passed" for v in r["tests"].values())
