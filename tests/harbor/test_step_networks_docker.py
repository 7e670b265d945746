"""A multi-step task whose steps give the agent different networks (issue 14, item 1): the agent's
one container switches allowlists between steps, and every step reaches exactly its own hosts.
Two real HTTP servers on the default bridge (``docker_net_support``); the agent probes both at
each step and writes what it reached into the repository (the trial's patch shows it)."""

from __future__ import annotations

import pytest
from docker_support import docker_skip_reason
from harbor_support import copy_fixture, run_lancebench
from lbtest import agent

pytest.importorskip("docker", reason="the Docker SDK is missing: pip install 'lancebench[docker]'")
from docker_net_support import BridgeHost  # noqa: E402

from lancebench.sandbox.docker_network import enforce_problem  # noqa: E402

_REASON = docker_skip_reason() or enforce_problem()
pytestmark = [pytest.mark.docker, pytest.mark.skipif(_REASON is not None, reason=_REASON or "")]


def test_each_step_reaches_its_own_hosts_only(shared, tmp_path):
    task = copy_fixture("two-step", shared)
    suffix = tmp_path.name[-8:]
    a, b = BridgeHost(f"lb-step-a-{suffix}"), BridgeHost(f"lb-step-b-{suffix}")
    try:
        a.serve_http("a")
        b.serve_http("b")
        toml = task / "task.toml"
        text = toml.read_text().replace('name = "one"', f'name = "one"\nagent = {{ network_mode = "allowlist", '
                                                         f'allowed_hosts = ["{a.ip}"] }}')
        text = text.replace('name = "two"', f'name = "two"\nagent = {{ network_mode = "allowlist", '
                                            f'allowed_hosts = ["{b.ip}"] }}')
        toml.write_text(text)
        for step in ("one", "two"):
            instruction = task / "steps" / step / "instruction.md"
            instruction.write_text(instruction.read_text() + f"\nprobe: {a.ip}:8080\nprobe: {b.ip}:8080\n")
        (r,) = run_lancebench(task, agent("probe_hosts.sh"), tmp_path / "jobs")
    finally:
        a.close()
        b.close()
    assert [s["name"] for s in r["steps"]] == ["one", "two"], r
    (trial_patch,) = [p for p in (tmp_path / "jobs").rglob("patch.diff") if p.parent.name == r["trial_id"]]
    patch = trial_patch.read_text()  # the work after the last step
    expected = [f"+{a.ip}:8080 reached", f"+{b.ip}:8080 refused",  # step one: a only
                f"+{a.ip}:8080 refused", f"+{b.ip}:8080 reached"]  # step two: b only
    lines = [line for line in patch.splitlines() if line.startswith("+") and ":8080" in line]
    assert lines == expected, patch
