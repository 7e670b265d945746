"""The trial's record (issue 27): results of older versions still load into the typed model, and a
user's backend that does not subclass the ``Backend`` protocol gets its hooks' defaults."""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

from lancebench.backends.registry import make_backend
from lancebench.errors import SandboxError
from lancebench.results.models import StepResult, TrialResult
from lancebench.runner.control import pristine_control
from lancebench.sandbox.backend import Backend
from lancebench.sandbox.fstree import remove_tree
from lancebench.task.load import load_task
from lancebench.task.settings import NetworkPolicy

CALC = Path(__file__).resolve().parents[1] / "fixtures" / "tasks" / "calc"

OLD_RESULT = {  # a multi-step trial's result.json as versions before issue 27 wrote it
    "schema_version": 1, "trial_id": "t__0__abc", "job": "j", "task": "t", "task_digest": "d", "agent": "oracle",
    "attempt": 0, "status": "unresolved", "reason": "mean reward 0.5 < 1 (step one resolved; step two unresolved)",
    "rewards": {"reward": 0.5},
    "steps": [{"name": "one", "status": "resolved", "rewards": {"reward": 1.0}, "reason": None, "agent_exit": "ok"},
              {"name": "two", "status": "unresolved", "rewards": {"reward": 0.0}, "reason": "tests not passing",
               "agent_exit": "ok", "stopped": "later steps not run: reward=0 below min_reward 1"}],
}


def test_a_result_of_an_older_version_loads_with_typed_steps_and_no_error():
    r = TrialResult.model_validate(OLD_RESULT)
    assert r.steps == [StepResult(name="one", status="resolved", rewards={"reward": 1.0}, agent_exit="ok"),
                       StepResult(name="two", status="unresolved", rewards={"reward": 0.0}, reason="tests not passing",
                                  agent_exit="ok", stopped="later steps not run: reward=0 below min_reward 1")]
    assert (r.error, r.phases) == (None, {})
    again = TrialResult.model_validate_json(r.model_dump_json())
    assert again == r


def test_a_step_record_keeps_refusing_unknown_keys():
    with pytest.raises(ValueError, match="surprise"):
        TrialResult.model_validate({**OLD_RESULT, "steps": [{"name": "one", "surprise": 1}]})


def test_a_plugin_backend_without_the_protocol_gets_its_hooks_defaults(tmp_path, monkeypatch):
    (tmp_path / "bare_backend_r27.py").write_text(textwrap.dedent('''
        class Bare:
            name = "bare"

            def __init__(self, options=None):
                self.options = options

            async def prepare(self, task):
                return "prepared"

            def open(self, task, env, scratch, *, mounts=(), network=False, labels=None):
                return None

            async def capture(self, task, env, sandbox, scratch):
                return ""

            async def resume(self, sandbox):
                return "its own"
    '''))
    monkeypatch.syspath_prepend(str(tmp_path))
    backend = make_backend("bare_backend_r27:Bare")
    assert isinstance(backend, Backend) and backend.name == "bare" and type(backend).__name__ == "Bare"

    async def hooks():
        return (await backend.prepare(None), await backend.resume(None),
                await backend.apply_patch(None, None, None, "", tmp_path), await backend.guard_python(None, None, None),
                await backend.guard_mounts(None, None))

    assert asyncio.run(hooks()) == ("prepared", "its own", None, None, ())  # its own methods first, then the defaults
    with pytest.raises(SandboxError, match="cannot change the network between steps"):
        asyncio.run(backend.set_network(None, NetworkPolicy("allowlist", ("example.com",))))
    sys.modules.pop("bare_backend_r27", None)


def test_the_pristine_control_runs_under_the_agent_phases_own_network():
    """The control that tells an agent's fault from the harness's opens its sandbox with the agent
    phase's policy itself: an allowlist reached it as no network at all before (a policy read as
    a bool), so a failure of the allowlist could never be reproduced. The local backend refuses an
    allowlist (it cannot enforce one): that refusal is the control's finding."""
    work = Path(tempfile.mkdtemp(prefix="lancebench-control-", dir="/var/tmp"))
    os.chmod(work, 0o755)
    task, backend = load_task(CALC), make_backend("local")

    async def go():
        env = await backend.prepare(task)
        return [await pristine_control(task, backend, env, work / name, network=policy, labels={})
                for name, policy in (("none", NetworkPolicy("no-network")),
                                     ("allow", NetworkPolicy("allowlist", ("example.com",))))]

    try:
        closed, allowlist = asyncio.run(go())
    finally:
        remove_tree(work)
    assert closed is None
    assert allowlist is not None and "cannot enforce a network allowlist" in allowlist, allowlist


def test_a_plugin_backends_sandbox_gets_async_with(tmp_path, monkeypatch):
    """A plug-in backend's sandbox that defines only start and stop is an async context manager
    once opened: started on entry, stopped on exit, and stopped after a start that failed."""
    (tmp_path / "life_backend_r27.py").write_text(textwrap.dedent('''
        class Box:
            def __init__(self, fail):
                self.fail, self.calls = fail, []

            async def start(self):
                self.calls.append("start")
                if self.fail:
                    raise RuntimeError("no engine")

            async def stop(self):
                self.calls.append("stop")


        class Plain:
            def __init__(self, options=None):
                self.options = options

            def open(self, task, env, scratch, *, mounts=(), network=None, labels=None):
                return Box(fail=scratch == "fail")
    '''))
    monkeypatch.syspath_prepend(str(tmp_path))
    backend = make_backend("life_backend_r27:Plain")

    async def go():
        async with backend.open(None, None, "ok") as box:
            inside = list(box.calls)
        broken = backend.open(None, None, "fail")
        with pytest.raises(RuntimeError, match="no engine"):
            async with broken:
                pass
        return inside, box.calls, broken.calls, type(box).__name__

    try:
        assert asyncio.run(go()) == (["start"], ["start", "stop"], ["start", "stop"], "Box")
    finally:
        sys.modules.pop("life_backend_r27", None)
