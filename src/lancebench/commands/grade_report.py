"""Helpers of ``lancebench grade``: the ``--instance-ids`` filter and the SWE-bench-style report
that lists empty patches and errors apart from unresolved instances (SWE-bench's evaluation report
has ``empty_patch_ids`` and ``error_ids`` next to ``resolved_ids`` and ``unresolved_ids``)."""

from __future__ import annotations

from lancebench.errors import ConfigError
from lancebench.results.models import TrialResult


def parse_instance_ids(given: list[str] | None) -> list[str] | None:
    """The ids of ``--instance-ids`` (repeatable; each value may hold several ids separated by
    spaces or commas), in order without repeats; None when the option was not given. Raises
    :class:`ConfigError` when it was given but names no id."""
    if given is None:
        return None
    ids = list(dict.fromkeys(i for v in given for i in v.replace(",", " ").split()))
    if not ids:
        raise ConfigError("--instance-ids: no id given; name instance ids (task names), e.g. --instance-ids calc")
    return ids


def filter_instances(by_model: dict[str, dict[str, str]], ids: list[str] | None,
                     task_names: set[str]) -> dict[str, dict[str, str]]:
    """``by_model`` ({model: {instance_id: patch}}) kept to the instances of ``ids`` (all when None).
    Raises :class:`ConfigError` for an id that names no task or has no prediction, since
    SWE-bench refuses such ids too and a typo must not grade nothing silently."""
    if ids is None:
        return by_model
    no_task = [i for i in ids if i not in task_names]
    if no_task:
        raise ConfigError(f"--instance-ids: {', '.join(no_task)} name(s) no task "
                          f"(ids are task names; tasks here: {', '.join(sorted(task_names)[:8])})")
    predicted = {i for patches in by_model.values() for i in patches}
    unpredicted = [i for i in ids if i not in predicted]
    if unpredicted:
        raise ConfigError(f"--instance-ids: no prediction for {', '.join(unpredicted)} in --predictions")
    wanted = set(ids)
    return {m: {i: p for i, p in patches.items() if i in wanted} for m, patches in by_model.items()
            if wanted & set(patches)}


def grade_report(results: list[TrialResult], patches: dict[str, str], total: int) -> dict:
    """One model's report: ``{"total_instances": int, "submitted_instances": int,
    "completed_instances": int, "resolved_ids", "unresolved_ids", "empty_patch_ids",
    "error_ids": sorted lists of instance ids, plus "<name>_instances" counts of each}``.

    The id lists are disjoint, in this order of precedence: ``empty_patch_ids`` (the prediction's
    patch is empty or whitespace: nothing was graded), ``error_ids`` (the trial is ``invalid``, an
    infrastructure fault, or the patch did not apply), ``resolved_ids``, ``unresolved_ids``. Only
    attempt 0 of the predicted instances counts. ``completed_instances`` = resolved + unresolved
    (as in SWE-bench: instances graded to an outcome). ``total`` is the number of tasks selected."""
    ids: dict[str, list[str]] = {"resolved_ids": [], "unresolved_ids": [], "empty_patch_ids": [], "error_ids": []}
    for r in sorted(results, key=lambda r: r.task):
        if r.attempt != 0 or r.task not in patches:
            continue
        if not patches[r.task].strip():
            key = "empty_patch_ids"
        elif r.status == "invalid" or r.patch_applied is False:
            key = "error_ids"
        else:
            key = "resolved_ids" if r.status == "resolved" else "unresolved_ids"
        ids[key].append(r.task)
    report: dict = {"total_instances": total, "submitted_instances": len(patches),
                    "completed_instances": len(ids["resolved_ids"]) + len(ids["unresolved_ids"])}
    report.update({k.replace("_ids", "_instances"): len(v) for k, v in ids.items()})
    return report | ids


def report_line(model: str, report: dict) -> str:
    """One line of a model's report for the terminal, e.g. ``m: 3 submitted, 1 resolved, 1
    unresolved, 1 empty patch (calc), 0 errors``; ids are listed for the empty and error groups."""
    def listed(key: str) -> str:
        ids = report[key]
        return f" ({', '.join(ids[:10])}{', ...' if len(ids) > 10 else ''})" if ids else ""
    return (f"{model}: {report['submitted_instances']} submitted, {report['resolved_instances']} resolved, "
            f"{report['unresolved_instances']} unresolved, {report['empty_patch_instances']} empty patch"
            f"{listed('empty_patch_ids')}, {report['error_instances']} error(s){listed('error_ids')}")


def patches_by_model(records: list[dict], source: object) -> dict[str, dict[str, str]]:
    """``{model_name_or_path: {instance_id: model_patch}}`` of predictions ``records`` (as
    :func:`lancebench.agents.replay.read_predictions` returns them). Raises :class:`ConfigError`
    naming ``source`` (the file) when a model has two predictions for one instance."""
    by_model: dict[str, dict[str, str]] = {}
    for rec in records:
        patches = by_model.setdefault(str(rec["model_name_or_path"]), {})
        if str(rec["instance_id"]) in patches:
            raise ConfigError(f"{source}: two predictions of model {rec['model_name_or_path']!r} for "
                              f"{rec['instance_id']}; keep one")
        patches[str(rec["instance_id"])] = rec["model_patch"]
    return by_model
