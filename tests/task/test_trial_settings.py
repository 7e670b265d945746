"""A trial's settings are resolved once from every table of task.toml (issue 27): the agent side's
(``trial_settings``) and a verifier's (``phase_settings``), checked against every-field's task.toml
read by hand."""

from __future__ import annotations

from harbor_support import FIXTURES

from lancebench.task import load_task
from lancebench.task.settings import NetworkPolicy, PhaseSettings, phase_settings, trial_settings


def test_the_agent_sides_settings_per_step(monkeypatch):
    monkeypatch.setenv("LB_FIXTURE_TOKEN", "tok-1234567890")
    task = load_task(FIXTURES / "every-field")
    settings = trial_settings(task)
    assert settings.agent == PhaseSettings({"GREETING": "hello"}, "agent", NetworkPolicy("public"))
    # step one closes the network ([steps.agent]); step two has no table of its own: [agent]'s
    assert [(p.user, p.network.mode) for p in settings.steps] == [("agent", "no-network"), ("agent", "public")]
    # [solution] env's template has a default (LB_FIXTURE_MODE is not set here)
    monkeypatch.delenv("LB_FIXTURE_MODE", raising=False)
    assert trial_settings(task).solution_env == {"GREETING": "hello", "SOLUTION_MODE": "fast"}
    assert settings.healthcheck_env == {"GREETING": "hello"}
    assert all(p.secrets == frozenset() for p in (settings.agent, *settings.steps))


def test_a_steps_verifier_settings(monkeypatch):
    monkeypatch.setenv("LB_FIXTURE_TOKEN", "tok-1234567890")
    task = load_task(FIXTURES / "every-field")
    verifier = phase_settings(task, "verifier", step="one")
    assert verifier.env == {"GREETING": "hello", "MODE": "strict", "TOKEN": "tok-1234567890", "STEP": "one"}
    assert verifier.user == "root"
    assert verifier.network == NetworkPolicy("allowlist", ("api.example.com",))
    assert verifier.secrets == frozenset({"tok-1234567890"})  # TOKEN's host value; MODE and STEP are literals
