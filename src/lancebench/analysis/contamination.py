"""Contamination check: does a configuration solve public tasks more often than private ones?

For each configuration (agent, model, dataset and settings, see
:meth:`lancebench.results.models.TrialResult.configuration`) with trials on both halves, the
per-trial solve rates ``p1`` (public: ``split = "public"``, or taxonomy ``visibility = "public"``) and ``p2``
(private) are compared with the pooled two-proportion z-test (e.g. Agresti, *Categorical Data
Analysis*, 3rd ed., section 2.1.4; NIST/SEMATECH e-Handbook 7.3.3):

    p = (x1 + x2) / (n1 + n2),   z = (p1 - p2) / sqrt(p (1 - p) (1/n1 + 1/n2)),
    p-value (two-sided) = erfc(|z| / sqrt(2)).

Valid trials only (invalid ones are the harness's, not the agent's). Trials of one task are not
independent; with several attempts per task the test is optimistic, which the note says. A
warning is raised when the public half is solved more often and the p-value is below
:data:`WARN_P` (0.05). With ``p = 0`` or ``1`` (no spread) the p-value is 1.0.

Guided variants: a task whose taxonomy has ``guided_of = "<task>"`` is the guided variant of that
task (the same problem with more help in its instruction). Both solve rates are given per base
task: solved only with guidance reads as *hard*; unsolved even with guidance as *unsolvable*
(or mis-specified).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import asdict, dataclass

from lancebench.results.models import TrialResult

WARN_P = 0.05


@dataclass(frozen=True)
class TwoProportion:
    """The pooled two-proportion z-test: counts ``x1``/``n1`` and ``x2``/``n2``, rates ``p1``/``p2``,
    ``diff = p1 - p2``, ``z`` and the two-sided ``p_value``."""

    x1: int
    n1: int
    x2: int
    n2: int
    p1: float
    p2: float
    diff: float
    z: float
    p_value: float


def two_proportion_test(x1: int, n1: int, x2: int, n2: int) -> TwoProportion:
    """See the module docstring for the formula. Raises ValueError when a count is out of range
    or a group is empty."""
    if n1 <= 0 or n2 <= 0 or not (0 <= x1 <= n1) or not (0 <= x2 <= n2):
        raise ValueError(f"two-proportion test needs 0 <= x <= n and n > 0, got {x1}/{n1} and {x2}/{n2}")
    p1, p2 = x1 / n1, x2 / n2
    pooled = (x1 + x2) / (n1 + n2)
    se = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    z = 0.0 if se == 0 else (p1 - p2) / se
    return TwoProportion(x1, n1, x2, n2, p1, p2, p1 - p2, z, math.erfc(abs(z) / math.sqrt(2)))


def visibility(r: TrialResult) -> str:
    """``public`` or ``private``: taxonomy ``visibility`` (Senior SWE-Bench) when set, else ``split``."""
    v = str(r.taxonomy.get("visibility", "")).lower()
    return v if v in ("public", "private") else r.split


def contamination(results: Iterable[TrialResult]) -> list[dict]:
    """One dict per configuration (:meth:`TrialResult.configuration`) with valid trials on both
    halves: ``agent``, ``model``, ``dataset``, ``settings``, the :class:`TwoProportion` fields
    (1 = public, 2 = private), ``public_tasks``, ``private_tasks``, ``warning`` (bool: public
    ahead with p < :data:`WARN_P`) and ``note``."""
    groups: dict[tuple, list[TrialResult]] = {}
    for r in results:
        if r.status != "invalid":
            groups.setdefault(r.configuration(), []).append(r)
    out = []
    for (agent, model, dataset, settings), trials in groups.items():
        halves = {h: [r for r in trials if visibility(r) == h] for h in ("public", "private")}
        if not halves["public"] or not halves["private"]:
            continue
        x = {h: sum(r.status == "resolved" for r in t) for h, t in halves.items()}
        test = two_proportion_test(x["public"], len(halves["public"]), x["private"], len(halves["private"]))
        tasks = {h: len({r.task for r in t}) for h, t in halves.items()}
        repeated = len(trials) > tasks["public"] + tasks["private"]
        out.append({"agent": agent, "model": model, "dataset": dataset, "settings": settings, **asdict(test),
                    "public_tasks": tasks["public"], "private_tasks": tasks["private"],
                    "warning": test.diff > 0 and test.p_value < WARN_P,
                    "note": "several attempts per task: trials are not independent, the p-value is optimistic"
                    if repeated else ""})
    return out


def guided_pairs(results: Iterable[TrialResult]) -> list[dict]:
    """Per configuration (:meth:`TrialResult.configuration`) and base task with a guided variant:
    ``agent``, ``model``, ``dataset``, ``settings``, ``task``,
    ``guided_task``, ``plain_rate`` and ``guided_rate`` (valid trials' solve rates; None when a
    side has no valid trial) and ``reading``: ``solved``, ``hard`` (solved only with guidance),
    ``unsolvable`` (unsolved even with guidance) or ``incomplete``."""
    rates: dict[tuple, list[int]] = {}
    base_of: dict[str, str] = {}
    for r in results:
        if r.status == "invalid":
            continue
        if r.taxonomy.get("guided_of"):
            base_of[r.task] = str(r.taxonomy["guided_of"])
        rates.setdefault((*r.configuration(), r.task), []).append(int(r.status == "resolved"))
    out = []
    configs = sorted({key[:4] for key in rates}, key=str)
    for agent, model, dataset, settings in configs:
        for guided, base in sorted(base_of.items()):
            plain = rates.get((agent, model, dataset, settings, base))
            helped = rates.get((agent, model, dataset, settings, guided))
            if plain is None and helped is None:
                continue
            pr = sum(plain) / len(plain) if plain else None
            gr = sum(helped) / len(helped) if helped else None
            reading = ("incomplete" if pr is None or gr is None else "solved" if pr > 0
                       else "hard" if gr > 0 else "unsolvable")
            out.append({"agent": agent, "model": model, "dataset": dataset, "settings": settings,
                        "task": base, "guided_task": guided,
                        "plain_rate": pr, "guided_rate": gr, "reading": reading})
    return out
