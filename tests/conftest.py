"""Shared pytest configuration.

Task fixtures under tests/fixtures hold hidden tests and repositories of fixture tasks (for
example tasks/calc/tests/test_calc.py, which imports a module that only exists inside the task's
sandbox): they are data for lancebench, not tests of lancebench, so pytest must not collect them.

The suite runs on two workers (``pytest -n 2``, with ``--dist loadfile --no-loadscope-reorder``
from ``pyproject.toml``): each file runs whole on one worker, files are handed out in collection
order, and :func:`pytest_collection_modifyitems` puts the longest files first (longest processing
time first: the last file to start is a short one, so neither worker waits long for the other).
"""

from __future__ import annotations

import os

# LiteLLM's price table from the installed package, as lancebench.llm.client sets it: a test file
# that imports litellm first (at collection, on every worker) would otherwise try GitHub for it,
# three times with back-off (about 8 s without a network, 30 s here), before falling back to it
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

collect_ignore_glob = ["fixtures/*"]

#: The files that take longest, longest first: seconds on CI's 2 cores (mostly the sum of the file's
#: tests among the 80 slowest of the clean-clone run of 2 December, peer tests left out: a lower
#: bound; older figures where that list holds too few of its tests). Files not named here follow in
#: collection order; a file that grows slow belongs here.
LONGEST_FIRST = (
    "tests/llm/test_installed_agents.py",  # 229 s (Aider's install: minutes on a clean machine, then cached)
    "tests/adversarial/test_runner_uid_attacks.py",  # 221 s
    "tests/judging/test_local_judges.py",  # 217 s (three judges on the local model)
    "tests/adversarial/test_user_tool_attacks.py",  # 216 s
    "tests/browser/test_browser_tasks.py",  # 179 s
    "tests/adversarial/test_grading_attacks.py",  # 176 s (its deep-tree test alone 115 s on docker)
    "tests/adversarial/test_canary_attacks.py",  # 610 s for both backends at a load of 20 on 2 cores (four jobs each)
    "tests/datasets/test_swelancer_ic.py",  # 136 s
    "tests/adversarial/test_forgery_attacks.py",  # 115 s
    "tests/browser/test_user_tool.py",  # 101 s
    "tests/adversarial/test_round7_attacks.py",  # 99 s
    "tests/adversarial/test_round4_attacks.py",  # 140 s: one job of six trials a backend, one of two plug-in trials
    "tests/browser/test_swelancer_ic_standin.py",  # 83 s
    "tests/judging/test_validation_drivers_e2e.py",  # 72 s (builds cached; +60 s each)
    "tests/core/test_job_resume.py",  # 69 s
    "tests/datasets/test_swelancer_runs.py",  # 68 s
    "tests/llm/test_llm_job.py",  # 67 s
    "tests/datasets/test_swelancer_repo_path.py",  # 100 s in the CI run of 2 December (59 s at a load of 17 now)
    "tests/core/test_mini_stacks.py",  # 170 s at a load of 20-28 on 2 cores (Go and Rust builds; far less idle)
    "tests/adversarial/test_invalid_attacks.py",  # 110 s on a loaded machine (four jobs, two on docker)
    "tests/judging/test_senior_grading.py",  # 61 s
    "tests/adversarial/test_dns_attacks.py",  # 59 s
    "tests/adversarial/test_round3_attacks.py",  # 75 s (four jobs of one trial, two on docker)
    "tests/llm/test_run_controls.py",  # about 70 s (estimated from 470 s at a load of 30 on 2 cores)
    "tests/adversarial/test_round13_attacks.py",  # 75-110 s here (16 cases, both backends, verify_patch each)
    "tests/adversarial/test_storage_attacks.py",  # 59 s
    "tests/core/test_jobs_trust.py",  # 59 s
    "tests/harbor/test_env_and_sizes.py",  # 52 s
    "tests/report/test_html_site.py",  # 49 s
    "tests/harbor/test_senior_standins_docker.py",  # 40 s without its peer tests
    "tests/harbor/test_two_step.py",  # 40 s without its peer tests
    "tests/harbor/test_artifacts.py",  # 40 s without its peer tests
    "tests/harbor/test_terminal_bench_style.py",  # 24-190 s (its verifier installs pytest from PyPI)
    "tests/core/test_agent_faults.py",  # 41 s
    "tests/core/test_verifier_faults.py",  # 40 s
    "tests/adversarial/test_capture_attacks.py",  # 39 s
    "tests/core/test_cheating_agents.py",  # 37 s
    "tests/adversarial/test_round10_attacks.py",  # 34 s
    "tests/judging/test_senior_steps.py",  # 34 s
    "tests/llm/test_gateway_cut_calls.py",  # 33 s (one gateway for the file)
    "tests/sandbox/test_docker.py",  # 31 s
    "tests/adversarial/test_network_attacks.py",  # 29 s
    "tests/adversarial/test_round6_attacks.py",  # 27 s
    "tests/judging/test_review_forgery.py",  # 20 s idle (68 s with 8 helpers on 2 cores)
    "tests/adversarial/test_local_public_network.py",  # 53 s at a load of 20 on 2 cores (one local trial)
    "tests/analysis/test_script_trace.py",  # 12 s idle (63 s with 8 helpers on 2 cores)
    "tests/runner/test_ray_executor.py",  # 18 s
    "tests/adversarial/test_reader_crash_attacks.py",  # 18 s
    "tests/adversarial/test_harness_attacks.py",  # 18 s
    "tests/harbor/test_users.py",  # 35 s with its peer test
    "tests/harbor/test_export.py",  # 27 s with its peer test
    "tests/core/test_quota_cleanup.py",  # 15 s
    "tests/llm/test_mini_swe_agent.py",  # 14 s
    "tests/report/test_hostile_bytes.py",  # 10 s idle (35 s with 8 helpers on 2 cores)
)


def pytest_collection_modifyitems(items) -> None:
    """Run the files of :data:`LONGEST_FIRST` first, in its order; the rest keep pytest's order.
    The sort is stable and by file, so each file's tests stay together and in their order (module
    fixtures are set up once)."""
    rank = {path: n for n, path in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))
