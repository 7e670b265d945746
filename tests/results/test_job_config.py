"""``job.json`` records the agent, model and options once, in its configuration (issue 27: JobConfig
repeated them beside ``config``); job folders written before keep loading, resuming and refusing
another configuration as they did."""

from __future__ import annotations

import json

import pytest

from lancebench.results.load import load_job_config
from lancebench.runner.executor import AgentRecipe
from lancebench.runner.job import ConfigMismatchError, JobOptions, check_same_config, write_job_config


def _opts(tmp_path, spec: str = "nop", **options) -> JobOptions:
    return JobOptions(name="j", jobs_dir=tmp_path, agent=AgentRecipe(spec, model="m1", options=options))


def test_job_json_holds_the_agent_model_and_options_only_in_its_config(tmp_path):
    paths = write_job_config(_opts(tmp_path, seed=3), [])
    recorded = json.loads(paths.job.read_text())
    assert not {"agent", "model", "agent_options"} & set(recorded)
    assert (recorded["config"]["agent"], recorded["config"]["model"], recorded["config"]["agent_options"]) == \
        ("nop", "m1", {"seed": 3})
    loaded = load_job_config(paths.job)
    assert (loaded.agent, loaded.model, loaded.agent_options) == ("nop", "m1", {"seed": 3})
    write_job_config(_opts(tmp_path, seed=3), [])  # the same configuration resumes
    with pytest.raises(ConfigMismatchError, match="agent: nop -> oracle"):
        write_job_config(_opts(tmp_path, "oracle", seed=3), [])


def test_a_job_json_that_repeats_them_still_loads_and_refuses_drift(tmp_path):
    paths = write_job_config(_opts(tmp_path, seed=3), [])
    before = json.loads(paths.job.read_text())  # as versions before this one wrote it: repeated at the top
    before.update(agent="nop", model="m1", agent_options={"seed": 3})
    paths.job.write_text(json.dumps(before))
    old = load_job_config(paths.job)
    assert (old.agent, old.model, old.agent_options) == ("nop", "m1", {"seed": 3})
    check_same_config(paths, old, _opts(tmp_path, seed=3).trial_config())
    with pytest.raises(ConfigMismatchError, match="agent_options"):
        check_same_config(paths, old, _opts(tmp_path, seed=4).trial_config())
    write_job_config(_opts(tmp_path, seed=3), [])  # resumed: rewritten once
    assert "agent" not in json.loads(paths.job.read_text())


def test_a_job_json_without_config_is_compared_on_what_it_recorded(tmp_path):
    paths = write_job_config(_opts(tmp_path), [])
    oldest = {k: v for k, v in json.loads(paths.job.read_text()).items() if k != "config"}
    oldest.update(agent="nop", model="m1", agent_options={})
    paths.job.write_text(json.dumps(oldest))
    old = load_job_config(paths.job)
    assert (old.config, old.agent, old.model) == (None, "nop", "m1")
    with pytest.raises(ConfigMismatchError, match="model: m1 -> m2"):
        check_same_config(paths, old, JobOptions(name="j", jobs_dir=tmp_path,
                                                 agent=AgentRecipe("nop", model="m2")).trial_config())
