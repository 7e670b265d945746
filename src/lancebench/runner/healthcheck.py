"""Health checks (Harbor's ``[environment.healthcheck]`` and a step's ``[steps.healthcheck]``),
run in the agent's sandbox before the agent starts, with Docker HEALTHCHECK semantics as Harbor
0.25 applies them (``harbor.environments.base.run_healthcheck``):

- the command runs until it exits 0 (healthy);
- during ``start_period_sec`` a failure does not count, and the next try comes after
  ``start_interval_sec``;
- after it, ``retries`` consecutive failures (tries ``interval_sec`` apart) fail the check;
- each try is bounded by ``timeout_sec``.

A check that fails before any agent code ran is the environment's fault: the trial is
``invalid``; one that fails after (a later step's) is blamed by a control run
(:func:`lancebench.runner.control.blame`).
"""

from __future__ import annotations

import asyncio
import time

from lancebench.errors import LancebenchError
from lancebench.sandbox.base import Sandbox
from lancebench.task.harbor import Healthcheck


class HealthcheckFailed(LancebenchError):
    """The task's health check did not pass; the message names the command and its last output."""


async def run_healthcheck(sandbox: Sandbox, check: Healthcheck, *, env: dict[str, str], where: str) -> int:
    """Run ``check`` in ``sandbox`` (see the module docstring). ``where`` names the TOML table in
    messages. Returns how many tries it took; raises :class:`HealthcheckFailed`."""
    start_end = time.monotonic() + check.start_period_sec
    failures, tries = 0, 0
    while True:
        in_start = time.monotonic() < start_end
        res = await sandbox.exec(check.command, env=env, timeout=check.timeout_sec)
        tries += 1
        if res.ok:
            return tries
        if in_start:
            await asyncio.sleep(check.start_interval_sec)
            continue
        failures += 1
        if failures >= check.retries:
            output = (res.output or "").strip()[-300:]
            why = "timed out" if res.timed_out else f"exit {res.exit_code}"
            raise HealthcheckFailed(f"health check [{where}] failed {failures} times in a row ({why}): "
                                    f"{check.command!r}" + (f": {output}" if output else ""))
        await asyncio.sleep(check.interval_sec)
