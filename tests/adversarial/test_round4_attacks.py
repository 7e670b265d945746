"""Grading integrity attacked after round 3's report-less check (attack pass "round 4").

Each attack is a script of ``agents/`` embedded in the instruction of a task of its own (derived
from ``calc``, graded by ``test.sh``'s exit status: no F2P/P2P lists) and run by
``agents/run_embedded.sh``, so one job per backend runs them all.

1. ``own-report``: the code under test writes a one-case JUnit report of its own into the
   report's FIFO at import and ends pytest with status 0 (``exit_with_own_report.sh``). Round 3's
   report-less check ran only when the graded run's report held no case; the canary run's report
   holds neither the canary nor its original (a note, "missing (original missing), not read"), and
   the fake case passes in both runs, so nothing differed: ``resolved`` with ``calc.add`` broken on
   both backends. Fixed: a graded pass whose report lacks a hidden test the untouched repository's
   run reports is forged (``verifier._unreported_pass``).
2. ``no-canary``: the same exit at import as round 3's ``exit_zero_whole_folder.sh``, on a task
   whose hidden tests are a unittest class (no canary can be made), so the report-less check,
   which ran only once a canary was made, never ran: ``resolved`` on both backends. Fixed: the
   check runs whether or not a canary was made.

3. ``break-when-wrong``: on a task graded over two runs that must both pass (``test_runs = 2``,
   ``pass_if = "all"``), code right in the first run and wrong in the second, which breaks the
   second run's reward channel when it is wrong (``break_run_when_wrong.sh``: ``reward.txt`` made a
   folder; it told the runs apart by the host folder of ``/tests`` in ``/proc/self/mountinfo``).
   ``combine_runs`` left broken runs out, so only the first counted: ``resolved`` on both backends.
   Fixed: with ``pass_if = "all"`` one broken run breaks the combination, and the untouched base
   decides whose fault it is (here the patch's: ``unresolved``). The runs' host folders now have
   random names (``test_run_names.py``), so the script is a flaky fix wrong at random (probability
   1/2 per run, over three runs: right in some and wrong in others 3 times in 4); a trial with a
   wrong graded run must be ``unresolved``, one the coin left right in every graded run is graded
   on its merits (the canary run), never ``invalid``.

4. ``skip-p2p``: on ``calc`` with its lists, a patch that fixes ``add``, breaks ``mul`` and has
   ``mul`` call ``pytest.skip`` when it runs (``skip_broken_p2p.sh``): a skipped P2P test counts as
   kept, so ``resolved``. Fixed: a P2P test the passing run skipped that passes on the untouched
   repository makes the trial ``unresolved`` (``verifier._skipped_p2p``).

The honest fix (``honest``) stays ``resolved`` beside them.
"""

from __future__ import annotations

import base64
import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from lbtest import TASKS, derive_task, job_dir, lb, results

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "llm"))
from scripted_server import Fail, Reply, scripted  # noqa: E402,F401  (the fixture)

AGENTS = Path(__file__).resolve().parent / "agents"
CALC = TASKS / "calc"
NO_LISTS = {r"^(f2p|p2p) = .*$": ""}
FIX = "#!/bin/bash\nsed -i 's/return a - b/return a + b/' calc.py\n"
UNITTEST = '''import unittest

import calc


class TestCalc(unittest.TestCase):
    def test_add(self):
        self.assertEqual(calc.add(2, 3), 5)

    def test_mul(self):
        self.assertEqual(calc.mul(4, 5), 20)
'''
ALL_OF_THREE = NO_LISTS | {r'^kind = "code"$': 'kind = "code"\ntest_runs = 3\npass_if = "all"'}
ATTACKS = {  # name: (script, task files, task.toml changes, what the reason says)
    "own-report": ("exit_with_own_report.sh", None, NO_LISTS, "forged verdict"),
    "no-canary": ("exit_zero_whole_folder.sh", {"tests/test_calc.py": UNITTEST}, NO_LISTS, "forged verdict"),
    "skip-p2p": ("skip_broken_p2p.sh", None, None, "P2P tests pass on the untouched repository and are skipped"),
    "break-when-wrong": ("break_run_when_wrong.sh", None, ALL_OF_THREE, "the grader works without the patch"),
}


def _embedded(script: str) -> str:
    text = script if script.startswith("#!") else (AGENTS / script).read_text()
    return "ATTACK_B64=" + base64.b64encode(text.encode()).decode()


@pytest.mark.slow
def test_a_pass_whose_report_lacks_the_hidden_tests_is_forged(jobs, shared, backend):
    tasks = shared / "tasks"
    tasks.mkdir()
    for name, (script, files, toml, _) in ATTACKS.items():
        derive_task(CALC, tasks / name, toml=toml, files=files, append_instruction=_embedded(script))
    derive_task(CALC, tasks / "honest", toml=NO_LISTS, files={"tests/test_calc.py": UNITTEST},
                append_instruction=_embedded(FIX))
    lb("run", "-p", tasks, "-a", f"script:{AGENTS / 'run_embedded.sh'}", "-o", jobs, "--backend", backend,
       "-n", "2", check=True, timeout=900)
    got = {r["task"]: r for r in results(job_dir(jobs))}
    assert set(got) == {*ATTACKS, "honest"}, sorted(got)
    flaky = got["break-when-wrong"]
    verifier = job_dir(jobs) / "trials" / flaky["trial_id"] / "verifier"
    if not any((verifier / f"run-{i}" / "logs" / "wrong").exists() for i in range(3)):  # right in every graded run
        assert flaky["status"] != "invalid", flaky["reason"]
        del got["break-when-wrong"]
    wrong = {name: (got[name]["status"], got[name]["reason"], got[name]["rewards"])
             for name, (_, _, _, says) in ATTACKS.items() if name in got
             if got[name]["status"] != "unresolved" or got[name]["rewards"].get("reward", 0.0) != 0.0
             or says not in (got[name]["reason"] or "")}
    assert wrong == {}
    assert got["honest"]["status"] == "resolved", (got["honest"]["reason"], got["honest"].get("scan_notes"))


FILTERED = Fail(400, "The response was filtered due to the prompt triggering content management policy.",
                code="content_filter")


@pytest.mark.slow
def test_an_agents_request_the_provider_refuses_is_its_failure(jobs, shared, scripted):  # noqa: F811
    # 4. A plug-in agent using lancebench's model client makes a request the provider refuses for
    # what it holds (a content filter; a bad parameter is refused the same way): the refusal was a
    # "model provider" fault, the trial `invalid` (left out of every rate, retried by
    # --retry-invalid): a losing agent's way out. Now a plain request to the job's model (the
    # control, sent by the harness's own client) decides: answered -> the agent's failure, its work
    # graded; refused too -> invalid.
    # Round 5: the control asked the refusing client itself, so (a) an agent whose client aimed
    # at a server of its own that refuses everything got `invalid` ("refused too"), (b) one whose
    # server refused the credentials stopped the whole job (exit 3), so did (d) a key of its own
    # given with a request to the job's model, (e) a call given a deadline already past (the client's
    # DeadlineExceeded) was an outage, `invalid`, and (c) the control carried
    # the agent's own arguments (here `temperature`), which may be what the provider refuses. A failure of
    # a model or server the job does not name is now the agent's, and the control holds nothing of
    # the agent's.
    own = {"own-refusing": scripted([FILTERED, FILTERED]), "own-auth": scripted([Fail(401, "invalid api key")])}
    ok = Reply("ok")  # the run's preflight request, before any trial
    jobs_model = {"answered": scripted([ok, FILTERED, ok]), "refused": scripted([ok, FILTERED, FILTERED]),
                  "own-key": scripted([ok, Fail(401, "invalid api key"), ok])}
    for name, srv in own.items():
        derive_task(CALC, shared / name / f"calc-{name}", append_instruction=f"API_BASE={srv.api_base}")
    for name in jobs_model:
        derive_task(CALC, shared / name / f"calc-{name}",
                    append_instruction="API_BASE=job-own-key" if name == "own-key" else "API_BASE=job")
    derive_task(CALC, shared / "past-deadline" / "calc-past-deadline", append_instruction="API_BASE=job-past-deadline")
    env = {"PYTHONPATH": os.pathsep.join(p for p in (str(AGENTS), os.environ.get("PYTHONPATH", "")) if p),
           "OPENAI_API_KEY": "sk-scripted"}
    runs = {"answered": ["answered", *own], "refused": ["refused"], "own-key": ["own-key", "past-deadline"]}

    def run(job: str) -> None:  # one job per model server, the three side by side
        args = [a for p in runs[job] for a in ("-p", shared / p / f"calc-{p}")]
        lb("run", *args, "-a", "faulty_agents:RefusedAgent", "-m", "openai/scripted", "--api-base",
           jobs_model[job].api_base, "-o", jobs, "--backend", "local", "-n", "3", "--job-name", job, check=True,
           timeout=600, env=env)

    with ThreadPoolExecutor(len(runs)) as pool:
        list(pool.map(run, runs))
    got = {r["task"].split("-", 1)[1]: r for job in runs for r in results(jobs / job)}  # calc-own-key -> own-key
    assert sorted(got) == sorted([*own, *jobs_model, "past-deadline"]), sorted(got)
    not_its = {n: (r["status"], r["reason"], r.get("control")) for n, r in got.items()
               if n != "refused" and (r["status"] != "unresolved" or r["rewards"].get("reward") != 0.0)}
    assert not_its == {}
    assert all("is not the job's model" in json.dumps(got[n]) for n in own), {n: got[n] for n in own}
    refused = got["refused"]
    assert refused["status"] == "invalid" and "refused too" in (refused.get("control") or ""), refused
    # each own server got the agent's one request and no control; the job's model the preflight, the
    # agent's request and the control (without the agent's argument)
    assert [len(s.requests) for s in [*own.values(), *jobs_model.values()]] == [1, 1, 3, 3, 3]
    assert [r["body"].get("temperature") for r in jobs_model["answered"].requests] == [None, 1.7, None]


@pytest.mark.slow
def test_a_refusal_of_what_the_models_conversation_held_is_the_agents_failure(jobs, shared, scripted):  # noqa: F811
    # Round 5: mini-swe-agent turned every model error into an outcome claiming an outage
    # (invalid_reason), refusals included, so the round-4 control never ran: a model whose own
    # turns made the provider refuse the conversation (or a task's agent steering it there) had its
    # losing trial `invalid`. Now a refusal reaches the agent phase's control: a plain request to
    # the same model is answered, so the trial is the agent's failure, graded `unresolved`.
    srv = scripted([Reply("ok"), FILTERED, Reply("ok")])  # the run's preflight, the agent's request, the control
    task = derive_task(CALC, shared / "calc-mini")
    lb("run", "-p", task, "-a", "mini-swe-agent", "-m", "openai/scripted", "--api-base", srv.api_base, "-o", jobs,
       "--backend", "local", "--job-name", "j", check=True, timeout=600, env={"OPENAI_API_KEY": "sk-scripted"})
    (got,) = results(jobs / "j")
    assert (got["status"], got["rewards"].get("reward")) == ("unresolved", 0.0), (got["status"], got["reason"],
                                                                                  got.get("control"))
    assert len(srv.requests) == 3 and "refused" in json.dumps(got)
