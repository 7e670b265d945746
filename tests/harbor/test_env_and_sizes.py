"""A Harbor task as they ship (an image without git or Python, legacy size strings, env tables
with host templates) runs on the docker backend as its author meant, and as Harbor 0.25 runs it."""

from __future__ import annotations

import pytest
from docker_support import docker_skip_reason
from harbor_support import FIXTURES, copy_fixture, harbor_reward, harbor_skip_reason, run_harbor, run_lancebench

pytestmark = pytest.mark.skipif(docker_skip_reason() is not None, reason=str(docker_skip_reason()))
TASK = FIXTURES / "env-sizes"
HOST = {"LB_HARBOR_WORD": "zebra"}


def test_oracle_resolves_with_env_tables_from_the_host_and_the_512M_limit(tmp_path):
    (r,) = run_lancebench(TASK, "oracle", tmp_path / "jobs", HOST)
    # test.sh gives 1 only for "hello zebra" (GREETING from [environment].env, the word from
    # ${LB_HARBOR_WORD} through [solution].env and [verifier].env) with the 900 MB allocation refused
    assert (r["status"], r["rewards"]) == ("resolved", {"reward": 1.0}), r
    assert "word.txt" in (tmp_path / "jobs" / "env-sizes-oracle").joinpath(
        "trials", r["trial_id"], "patch.diff").read_text()  # captured without git in the image


def test_nop_gets_zero(tmp_path):
    (r,) = run_lancebench(TASK, "nop", tmp_path / "jobs", HOST)
    assert (r["status"], r["rewards"]) == ("unresolved", {"reward": 0.0}), r


def test_the_memory_limit_is_what_stops_the_allocation(shared, tmp_path):
    task = copy_fixture("env-sizes", shared)
    toml = task / "task.toml"
    toml.write_text(toml.read_text().replace('memory = "512M"', 'memory = "4G"'))
    (r,) = run_lancebench(task, "oracle", tmp_path / "jobs", HOST)
    assert r["status"] == "unresolved", r  # with 4 GiB the allocation gets through, and test.sh says so


@pytest.mark.peer
@pytest.mark.skipif(harbor_skip_reason() is not None, reason=str(harbor_skip_reason()))
@pytest.mark.parametrize("agent,reward", [("oracle", 1.0)])  # nop is compared on two-step (CI time)
def test_harbor_gives_the_same_rewards(tmp_path, agent, reward):
    (h,) = run_harbor(TASK, agent, tmp_path / "hjobs", HOST)
    (r,) = run_lancebench(TASK, agent, tmp_path / "jobs", HOST)
    assert harbor_reward(h) == r["rewards"] == {"reward": reward}
