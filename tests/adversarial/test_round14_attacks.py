"""Attack pass round 14 (docs/security.md, "Attack pass round 14"): the changes of the hour before
it: the graded container halted before its removal (``Backend.halt``, docker), the verifier run's
sandbox life in one call (``verifier._sandbox_run``), the mount table kept between removals
(``sandbox/fstree.py``), the uid lease taken in the start's worker thread, the gateway's limits per
trial key (``llm/gateway_hooks.py:_within_limits``) and the witness's late writes.

1. ``round14_cut_streams.py wait``: calls not streamed, each dropped 1 s after it was sent. The
   proxy logs no answer for a call its client left, so it stays "in flight" until the trial ends
   (``Gateway.end`` prices it then), and ``_within_limits`` counted only answered calls' cost:
   every such call passed ``max_cost`` and reached the model (which bills it). Fixed: calls in
   flight count at their estimate (prompt tokens and the answer's tokens streamed so far, priced
   as ``Gateway.end`` prices a cut call, ``gateway_hooks._estimate``).
2. Held, ``round14_cut_streams.py``: streamed calls dropped once their text came. LiteLLM logs
   such a call as answered (``client_disconnected``, priced on what was streamed), so its cost
   met the limit at once.
3. ``round14_count_reads.py``: a run leaves a number in the host's I/O counters of its storage
   quota's loop device (777 direct reads), which every sandbox read (``/proc/diskstats``; on docker
   also ``/sys/block/loop*/stat``) and which a loop device keeps after it is detached (and a halted
   container's quota stays attached while the canary run's tests run): a later run (the canary run)
   read 777 more reads than before (783 local, 835 docker, measured). Fixed: both files' counts
   are hidden in every sandbox (local: ``/dev/null`` over ``/proc/diskstats``; docker:
   ``COUNTERS_MASKED``, the same and a tmpfs over ``/sys/devices/virtual/block``). Noisier
   host-wide counters (``/proc/stat``'s forks, ``/proc/vmstat``) remain, shared with every
   process of the host.
4. The witness's reader thread marked the FIFO open and then read whether the runner had ended;
   ``runner_ended`` marks the end once it sees the FIFO open. A thread switched out between the
   two (a busy harness) counted the runner's own report late: the run broken, an honest patch
   ``unresolved`` when its base was not. Made exact with a trace function that pauses the reader
   there: ``late`` 1 before the fix, 0 after (the flags are read before the FIFO is marked open).
5. Held: uid leases taken in the start's worker thread, 16 starts at once, every other one
   cancelled and stopped meanwhile: distinct pairs, none held after the stops.
6. An answer (not streamed) the agent received, its trial's key ended before LiteLLM logged it
   (an agent that exits as soon as its answer came): counted as a cut call at its prompt alone
   (999 answer tokens recorded as 0). Fixed: the answer's usage joins the call's in-flight record
   before it goes out (``UsageLog.async_post_call_success_hook``).
7. Held: nothing of a halted grading container runs on (docker); the local backend's ``halt`` is
   False. Held: ``max_steps`` on the Responses and Anthropic messages routes and with ``n`` = 3.
8. Calls sent at once each passed ``max_cost`` (an answer is priced when it comes); fixed: a key
   with a cost limit is served one call at a time.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from docker_support import docker_skip_reason

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "llm"))
from scripted_server import GATEWAY_MODEL as MODEL, Reply  # noqa: E402

from lancebench.llm.gateway import Gateway  # noqa: E402
from lancebench.sandbox.base import Mount, SandboxSpec  # noqa: E402
from lancebench.sandbox.fstree import remove_tree  # noqa: E402
from lancebench.sandbox.local import LocalSandbox  # noqa: E402
from lancebench.sandbox.quota import mount_quota  # noqa: E402
from lancebench.sandbox.uid_lease import LEASE_DIR, lease  # noqa: E402
from lancebench.task.load import load_task  # noqa: E402

AGENTS = Path(__file__).resolve().parent / "agents"
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "tasks"


def test_calls_cut_on_purpose_count_against_the_trials_cost_limit(served):
    """Three streamed calls, each dropped once its text came (the model then stalls 3 s before the
    stream's end), on a key whose ``max_cost`` is below one such call's price: the first passes
    (nothing spent yet), the second is refused (400) before it reaches the model, since the first
    cut call's estimate (its prompt and the text streamed, LiteLLM's price of them) reached it.
    Before the fix all three reached the model (three 200s)."""
    import litellm

    srv, gw = served
    content = "Sandboxes keep agents in. " * 8
    srv.rescript([Reply(content, prompt_tokens=999, completion_tokens=999, stall_sec=3) for _ in range(3)])
    key = gw.issue_key("round14-cut", max_cost_usd=1e-9)
    out = subprocess.run([sys.executable, str(AGENTS / "round14_cut_streams.py"), gw.base_url, key, "3"],
                         capture_output=True, text=True, timeout=120)
    statuses = [int(line.split()[0]) for line in out.stdout.splitlines()]  # measured: 1.7, 0.5, 0.01 s
    assert statuses[0] == 200 and '"Sandboxes' in out.stdout, out
    assert statuses[1:] == [400, 400], out.stdout
    assert len(srv.requests) == 1
    refused = gw.limit_reached(key) or ""
    assert refused.startswith("max_cost 1e-09 USD reached ("), refused
    spent = float(refused.split("(")[1].split()[0])
    p, c = litellm.cost_per_token(model=MODEL, prompt_tokens=_prompt_tokens(), completion_tokens=litellm.token_counter(
        model=MODEL, text=content))
    assert spent == pytest.approx(p + c, rel=0.05)  # the first call's estimate, as Gateway.end prices it
    gw.end(key, "done")


def test_calls_dropped_before_their_answer_count_against_the_trials_cost_limit(served):
    """Calls not streamed, each dropped 1 s after it was sent while the model takes 3 s: the proxy
    logs no answer for them, so they stay in flight until the trial ends. On a key whose
    ``max_cost`` is below one call's prompt price only the first reaches the model: the later
    ones wait for the key's one place (it has a cost limit) and are dropped there or refused
    (400), and a call sent after them is refused, since the first one's estimate (its prompt,
    LiteLLM's count and price, or its answer's once the model answered) counts. Before the fix
    all three reached the model and none was refused (``refused`` None), the trial's end then
    pricing three cut calls."""
    import litellm

    srv, gw = served
    srv.rescript([Reply("late", prompt_tokens=999, completion_tokens=999, delay_sec=3) for _ in range(3)])
    key = gw.issue_key("round14-dropped", max_cost_usd=1e-9)
    out = subprocess.run([sys.executable, str(AGENTS / "round14_cut_streams.py"), gw.base_url, key, "3", "wait"],
                         capture_output=True, text=True, timeout=120)
    statuses = [line.split()[0] for line in out.stdout.splitlines()]
    assert statuses[0] == "0" and set(statuses[1:]) <= {"0", "400"} and len(statuses) == 3, out
    chat = {"model": "any", "messages": [{"role": "user", "content": "hi"}]}
    assert _post(gw, key, "/v1/chat/completions", chat) == 400
    assert len(srv.requests) == 1
    # the later calls waited until the model answered the first (its usage joined its in-flight
    # record though its client had gone): the first call counts at its answer's price
    p, c = litellm.cost_per_token(model=MODEL, prompt_tokens=999, completion_tokens=999)
    assert gw.limit_reached(key) == f"max_cost 1e-09 USD reached ({p + c:.6f} USD spent)"
    usage, _ = gw.end(key, "done")
    assert usage.calls == 1 and usage.cost_usd == pytest.approx(p + c)


def _prompt_tokens() -> int:  # noqa: N802
    """LiteLLM's count of the attacking client's prompt (round14_cut_streams.py)."""
    import litellm

    return litellm.token_counter(model=MODEL, messages=[{"role": "user",
                                                         "content": "Tell me everything about sandboxes. " * 20}])


def _loop_of(folder: Path) -> str | None:
    """The loop device (``loopN``) mounted at or below ``folder`` in this process's mount table."""
    root = os.path.realpath(folder)
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields = line.split()
            source = fields[fields.index("-") + 2]
            if fields[4].startswith(root + "/") and source.startswith("/dev/loop"):
                return source.removeprefix("/dev/")
    return None


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
@pytest.mark.skipif(os.geteuid() != 0, reason="storage quotas need root")
def test_a_run_that_ended_leaves_no_number_in_the_hosts_io_counters(shared: Path):
    """One sandbox makes 777 direct reads on its storage quota (``round14_count_reads.py``) and
    stops (its quota released, the loop device detached); a later sandbox reads that loop
    device's "reads completed" in ``/proc/diskstats``. Before the fix it was 777 (and a few) more
    than before the run (the counters add up over the device's attachments; measured: 783): any
    later run (the canary run after the graded run) read a number an earlier run chose. Now the
    file is empty in the sandbox (``--ro-bind /dev/null /proc/diskstats``)."""
    script = AGENTS / "round14_count_reads.py"

    async def go() -> tuple[str, int, dict[str, int]]:
        quota = shared / "a-quota"  # a storage quota as the backends make one (sandbox.quota), the workspace on it
        quota.mkdir()
        assert mount_quota(quota, 32) is None
        os.chmod(quota, 0o777)
        loop = _loop_of(shared)
        assert loop is not None, "the storage quota is not a loop device"
        before = int(Path(f"/sys/block/{loop}/stat").read_text().split()[0])  # counters add up over attachments
        sender = LocalSandbox(SandboxSpec(workdir="/app", workspace=quota, mounts=(Mount(AGENTS, "/agents", False),)),
                              root=shared / "a-root")
        await sender.start()
        try:
            res = await sender.exec(["python3", f"/agents/{script.name}", "777"], timeout=60)
            assert res.stdout.strip() == "done", res.output
        finally:
            await sender.stop()
            remove_tree(quota)  # unmounted: the loop device detached
        assert _loop_of(shared) is None
        receiver = LocalSandbox(SandboxSpec(workdir="/app", workspace=shared / "b-ws",
                                            mounts=(Mount(AGENTS, "/agents", False),)), root=shared / "b-root")
        await receiver.start()
        try:
            seen = await receiver.exec(["python3", f"/agents/{script.name}", "read"], timeout=60)
        finally:
            await receiver.stop()
        return loop, before, {name: int(n) for name, n in (line.split() for line in seen.stdout.splitlines())}

    loop, before, counts = asyncio.run(go())
    assert counts.get(loop, before) - before < 777, f"{loop}: {counts[loop] - before} reads seen by a later sandbox"


@pytest.fixture(scope="module")
def calc_docker():
    """(the ``calc`` task, a docker backend, its prepared environment)."""
    reason = docker_skip_reason()
    if reason:
        pytest.skip(reason)
    from lancebench.backends.docker import DockerBackend

    task = load_task(FIXTURES / "calc")
    backend = DockerBackend()
    return task, backend, asyncio.run(backend.prepare(task))


def test_a_docker_run_that_ended_leaves_no_number_in_the_hosts_io_counters(calc_docker, shared: Path):
    """The same on docker, where the graded container's quota stays attached while its removal
    runs beside the canary run's tests (``Backend.halt``): a grading container makes 777 direct
    reads on its ``/dev/shm`` (on its storage quota) and stops; a later grading container reads
    ``/proc/diskstats`` and ``/sys/block/loop*/stat``. Before the fix it read 777 (and a few)
    more on that loop device than before the run; now it reads neither file's counts."""
    task, backend, env = calc_docker
    script = AGENTS / "round14_count_reads.py"
    labels = {"lancebench.job": f"pytest-r14-{uuid.uuid4().hex[:8]}", "lancebench.trial": "r14"}
    mounts = (Mount(AGENTS, "/agents", False), Mount(shared / "logs", "/logs/verifier", True))

    async def go() -> tuple[str, int, dict[str, int]]:
        sender = backend.open(task, env, shared / "a", labels=labels, mounts=mounts)
        await sender.start()
        try:
            loop = _loop_of(shared / "a")
            assert loop is not None, "the storage quota is not a loop device"
            before = int(Path(f"/sys/block/{loop}/stat").read_text().split()[0])
            res = await sender.exec(["python3", f"/agents/{script.name}", "777"], cwd="/dev/shm", timeout=60)
            assert res.stdout.strip() == "done", res.output
        finally:
            await sender.stop()
            remove_tree(shared / "a")
        receiver = backend.open(task, env, shared / "b", labels=labels, mounts=mounts)
        await receiver.start()
        try:
            seen = await receiver.exec(["python3", f"/agents/{script.name}", "read"], timeout=60)
        finally:
            await receiver.stop()
            remove_tree(shared / "b")
        return loop, before, {name: int(n) for name, n in (line.split() for line in seen.stdout.splitlines())}

    loop, before, counts = asyncio.run(go())
    assert counts.get(loop, before) - before < 777, f"{loop}: {counts[loop] - before} reads seen by a later sandbox"


def _free(uid: int) -> bool:
    """Is uid pair ``uid``'s lease free (its lock file takes an exclusive lock at once)?"""
    import fcntl

    fd = os.open(LEASE_DIR / str(uid), os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
def test_uid_leases_taken_in_worker_threads_are_never_shared_nor_kept(shared: Path, monkeypatch):
    """Held: 16 sandboxes started at once (their leases taken in worker threads), every other
    start cancelled at once and that sandbox stopped while its worker thread may still lease, then
    stopped again after the started ones: the started sandboxes hold 8 distinct uid pairs, and once
    every sandbox stopped no pair any of them leased (each lease recorded as it was taken) is
    still held."""
    import lancebench.sandbox.local as local_module

    taken: list[int] = []

    def recorded():
        got = lease()
        taken.append(got.uid)
        return got

    monkeypatch.setattr(local_module, "lease", recorded)

    async def go() -> list[int]:
        boxes = [LocalSandbox(SandboxSpec(workdir="/app", workspace=shared / f"ws{i}"), root=shared / f"r{i}",
                              lease_uid=True) for i in range(16)]
        starts = [asyncio.ensure_future(b.start()) for b in boxes]
        await asyncio.sleep(0)
        for s in starts[1::2]:
            s.cancel()
        for b in boxes[1::2]:
            await b.stop()  # while its start's worker thread may be leasing
        done = await asyncio.gather(*starts, return_exceptions=True)
        held = [b.uid for b, r in zip(boxes, done, strict=True) if r is None and b.started]
        await asyncio.sleep(0.5)  # the cancelled starts' worker threads end
        for b in boxes:
            await b.stop()
        return held

    held = asyncio.run(go())
    assert len(held) >= 8 and len(set(held)) == len(held), held
    assert len(taken) >= len(held) and all(_free(uid) for uid in taken), taken


def test_the_runners_own_report_is_not_late_when_the_reader_pauses_as_it_opens(tmp_path):
    """The runner writes its report and ends; the witness's reader thread, connected to it, marks
    the FIFO open and is then switched out (a busy harness: a GIL switch inside ``Event.set``)
    before it reads whether the runner ended. ``runner_ended`` sees the FIFO open, marks the end
    and waits for the reader; the reader then read "ended" and counted the runner's own write late:
    the run broken, an honest patch ``unresolved`` when its base is not. The pause is made exact
    here: a trace function of the reader thread sleeps at the line after ``_open.set()`` until the
    end is marked (2 s at most). Fixed: the reader reads the flags before it marks the FIFO open."""
    import threading
    import time

    from lancebench.grading import witness as witness_module

    code = witness_module.ReportWitness._run.__code__
    pause_line = next(n for _, _, n in code.co_lines() if n and "_open.set()" in
                      _source_line(witness_module.__file__, n - 2))

    def tracer(frame, event, arg):
        if frame.f_code is not code:
            return None

        def local(frame, event, arg):
            if event == "line" and frame.f_lineno == pause_line and w._open.is_set():
                deadline = time.monotonic() + 2
                while not w._ended.is_set() and time.monotonic() < deadline:
                    time.sleep(0.01)
            return local
        return local

    w = witness_module.ReportWitness(tmp_path)
    threading.settrace(tracer)
    try:
        w.start()
    finally:
        threading.settrace(None)  # only the reader thread, started meanwhile, is traced
    subprocess.run([sys.executable, "-c", "import sys; open(sys.argv[1], 'w').write('<testsuite/>')",
                    str(tmp_path / "junit.xml")], check=True, timeout=30)
    problem = w.runner_ended(grace=2.0)
    writes = w.stop()
    assert writes == [b"<testsuite/>"] and problem is None
    assert w.late == 0, "the runner's own report counted late"


def _source_line(path: str, index: int) -> str:
    with open(path) as f:
        return f.readlines()[index]


WRITER = "trap '' TERM HUP INT; while :; do echo x >> /logs/verifier/after-halt; sleep 0.05; done"


def test_nothing_of_a_halted_grading_container_runs_on(calc_docker, shared: Path):
    """Held (``Backend.halt``, docker): a command of a grading container still running (ignoring
    SIGTERM, SIGHUP and SIGINT, appending to the verifier's folder every 50 ms) when ``halt`` comes
    (a daemon does not outlive its own command: the sandbox's killer ends it): once ``halt``
    returns True, none of the container's processes is left on the host (the pids the engine
    listed before), and the file stops growing while the container's removal has not begun. The
    local backend's ``halt`` is False (its caller waits for ``stop``)."""
    from lancebench.backends.local import LocalBackend
    from lancebench.sandbox import docker_engine

    task, backend, env = calc_docker
    labels = {"lancebench.job": f"pytest-r14-{uuid.uuid4().hex[:8]}", "lancebench.trial": "r14"}
    (shared / "logs").mkdir()
    os.chmod(shared / "logs", 0o777)
    written = shared / "logs" / "after-halt"

    async def go() -> tuple[bool, list[int], int, int]:
        box = backend.open(task, env, shared / "a", labels=labels,
                           mounts=(Mount(shared / "logs", "/logs/verifier", True),))
        await box.start()
        try:
            running = asyncio.ensure_future(box.exec(["sh", "-c", WRITER], timeout=60))
            for _ in range(100):
                if written.exists() and written.stat().st_size > 4:
                    break
                await asyncio.sleep(0.05)
            top = docker_engine.client().api.top(box.container_id, ps_args="-eo pid")
            pids = [int(row[0]) for row in top["Processes"]]
            halted = await backend.halt(box)
            size = written.stat().st_size
            await asyncio.sleep(0.5)
            later = written.stat().st_size
            await asyncio.gather(running, return_exceptions=True)
            return halted, [p for p in pids if _alive(p)] if len(pids) >= 3 else pids, size, later
        finally:
            await box.stop()
            remove_tree(shared / "a")

    halted, alive, size, later = asyncio.run(go())
    assert halted and alive == [] and later == size > 4  # (fewer than 3 pids listed: alive is the list)
    assert asyncio.run(LocalBackend().halt(None)) is False  # type: ignore[arg-type]


def _alive(pid: int) -> bool:
    """Is host process ``pid`` there and not a zombie?"""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _post(gw: Gateway, key: str, route: str, body: dict, headers: dict | None = None) -> int:
    """One POST of ``body`` to the gateway's ``route`` with ``key``: its HTTP status."""
    import json
    import urllib.error
    import urllib.request

    req = urllib.request.Request(gw.base_url + route, json.dumps(body).encode(),
                                 {"Content-Type": "application/json", "Authorization": f"Bearer {key}",
                                  **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            r.read()
            return r.status
    except urllib.error.HTTPError as exc:
        return exc.code


def test_the_step_limit_holds_on_every_model_route(served):
    """Held: a key with ``max_steps`` 1 spends its call on chat completions; then the Responses
    API, Anthropic messages (``x-api-key``, as Claude Code sends it) and a chat call asking ``n``
    = 3 answers are each refused (400) before they reach the model, while each answers 200 on a
    key without limits."""
    srv, gw = served
    chat = {"model": "any", "messages": [{"role": "user", "content": "hi"}]}

    def each(key: str) -> dict[str, int]:
        return {"responses": _post(gw, key, "/v1/responses", {"model": "any", "input": "hi"}),
                "messages": _post(gw, key, "/v1/messages", {"model": "any", "max_tokens": 10, **chat},
                                  {"x-api-key": key, "anthropic-version": "2023-06-01"}),
                "n=3": _post(gw, key, "/v1/chat/completions", {**chat, "n": 3})}

    srv.rescript([Reply("a") for _ in range(4)])
    control = gw.issue_key("round14-routes-control")
    assert each(control) == {"responses": 200, "messages": 200, "n=3": 200}  # each route answers without a limit
    gw.end(control, "done")
    srv.rescript([Reply("a") for _ in range(4)])
    key = gw.issue_key("round14-routes", max_calls=1)
    assert _post(gw, key, "/v1/chat/completions", chat) == 200
    tried = each(key)
    assert tried == dict.fromkeys(tried, 400) and len(srv.requests) == 1, (tried, len(srv.requests))
    gw.end(key, "done")


def test_calls_sent_at_once_do_not_pass_the_trials_cost_limit_together(served):
    """Four calls sent at once (the model answers each after 1 s with 999 answer tokens) on a key
    whose ``max_cost`` is 1.5 answers: two reach the model (the second passes after the first is
    priced at one answer, as one call past the limit by its own cost), two are refused (400). Was
    open: all four reached the model and were answered, 2.7 times the limit; fixed: a key with a
    cost limit is served one call at a time (``gateway_limits``)."""
    import threading

    srv, gw = served
    srv.rescript([Reply("a", prompt_tokens=5, completion_tokens=999, delay_sec=1) for _ in range(4)])
    one = gw.price(5, 999) or 0.0
    key = gw.issue_key("round14-parallel", max_cost_usd=1.5 * one)
    chat = {"model": "any", "messages": [{"role": "user", "content": "hi"}]}
    statuses: list[int] = []
    threads = [threading.Thread(target=lambda: statuses.append(_post(gw, key, "/v1/chat/completions", chat)))
               for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sorted(statuses) == [200, 200, 400, 400], statuses
    assert len(srv.requests) == 2, f"{len(srv.requests)} calls reached the model"
    assert gw.limit_reached(key) == f"max_cost {1.5 * one:g} USD reached ({2 * one:.6f} USD spent)"


def test_an_answer_the_agent_received_is_counted_when_its_trial_ends_at_once(served):
    """An agent that exits as soon as its answer came (a big last call, or many at once): its
    trial's key is ended right after the answer was sent. The answer's usage (999 answer tokens,
    as the model reported them) is the trial's, not a cut call's estimate of its prompt alone."""
    srv, gw = served
    srv.rescript([Reply("the answer", prompt_tokens=5, completion_tokens=999)])
    key = gw.issue_key("round14-answered")
    chat = {"model": "any", "messages": [{"role": "user", "content": "hi"}]}
    assert _post(gw, key, "/v1/chat/completions", chat) == 200
    usage, calls = gw.end(key, "the agent ended")
    assert (usage.calls, usage.input_tokens, usage.output_tokens) == (1, 5, 999), calls
    assert "cut" not in calls[0]
    assert usage.cost_usd == pytest.approx(gw.price(5, 999)), calls
