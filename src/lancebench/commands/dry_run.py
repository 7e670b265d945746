"""``lancebench run --dry-run`` (and ``resume --dry-run``): the resolved configuration and the
planned trials, printed on standard output; nothing is started or written (issue 28)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lancebench.commands.common import out
from lancebench.results.index import RecordedTrial
from lancebench.runner.agent_phase import TrialSpec
from lancebench.runner.job import JobOptions


def plan_lines(settings: dict[str, Any], opts: JobOptions, todo: list[TrialSpec],
               kept: Sequence[RecordedTrial]) -> list[str]:
    """The lines of a dry run: the job folder, the settings as ``job.yaml`` would record them (YAML),
    the configuration every trial records, then one line per planned trial (``run``, or
    ``recorded`` with its status), sorted by task and attempt."""
    import yaml
    paths = opts.jobs_dir / opts.name
    lines = [f"dry run: nothing was started or written; job {paths} "
             f"({'exists' if (paths / 'job.json').is_file() else 'new'})", "", "settings (as job.yaml records them):"]
    lines += ["  " + line for line in yaml.safe_dump(settings, sort_keys=False).splitlines()]
    config = opts.trial_config().model_dump(mode="json", exclude={"lancebench_version"})
    lines += ["", "configuration of every trial:"] + [f"  {k}: {v}" for k, v in config.items()]
    rows = [(s.task.name, s.attempt, "run", s.trial_id) for s in todo]
    rows += [(r.task, r.attempt, f"recorded ({r.status})", r.trial_id) for r in kept]
    lines += ["", f"{len(rows)} trial(s): {len(todo)} to run, {len(kept)} already recorded"]
    lines += [f"  {task} #{attempt}: {what} [{tid}]" for task, attempt, what, tid in sorted(rows)]
    return lines


def print_plan(settings: dict[str, Any], opts: JobOptions, todo: list[TrialSpec],
               kept: Sequence[RecordedTrial]) -> None:
    """Print :func:`plan_lines` on standard output."""
    for line in plan_lines(settings, opts, todo, kept):
        out.print(line, highlight=False, soft_wrap=True, markup=False)
