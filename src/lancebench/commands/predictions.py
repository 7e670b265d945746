"""``lancebench predictions JOB -o preds.jsonl``: a job's patches as SWE-bench predictions (one JSON
object a line: ``instance_id`` = task name, ``model_name_or_path`` = ``AGENT@MODEL``, ``model_patch``,
and lancebench's ``agent`` and ``model``), which ``lancebench grade --predictions`` reads back."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from lancebench.commands.common import console, fail
from lancebench.errors import ConfigError, LancebenchError
from lancebench.results.load import load_job
from lancebench.results.models import TrialResult
from lancebench.results.paths import JobPaths


def prediction_records(job_dir: Path, results: list[TrialResult], attempt: int) -> list[dict]:
    """One record per code task with a trial of ``attempt`` and a captured ``patch.diff`` (an
    empty patch when the agent changed nothing), sorted by task. ``model_name_or_path`` names
    both: :func:`predictor_name`; ``agent`` and ``model`` (None without one) are given apart too."""
    paths = JobPaths(Path(job_dir))
    records = []
    for r in sorted(results, key=lambda r: r.task):
        if r.kind != "code" or r.attempt != attempt:
            continue
        patch = paths.trial(r.trial_id).patch
        text = patch.read_bytes().decode("utf-8", errors="surrogateescape") if patch.is_file() else None  # CRLF kept
        if text is None and r.status == "invalid":
            continue  # nothing was captured: no prediction to give
        records.append({"instance_id": r.task, "model_name_or_path": predictor_name(r.agent, r.model),
                        "model_patch": text or "", "agent": r.agent, "model": r.model})
    return records


def predictor_name(agent: str, model: str | None) -> str:
    """SWE-bench's ``model_name_or_path`` for a trial: ``AGENT@MODEL`` (e.g.
    ``mini-swe-agent@openai/gpt-4o``), the agent alone when it calls no model, and the model
    alone for graded predictions (agent ``predictions``, whose model is the predictions' name)."""
    if not model:
        return agent
    return model if agent == "predictions" else f"{agent}@{model}"


def predictions(job_dir: Path = typer.Argument(..., help="A job folder made by `lancebench run`."),
                out_path: Path = typer.Option(..., "-o", "--out", help="The JSONL file to write."),
                attempt: int = typer.Option(0, "--attempt", min=0, help="Which attempt's patch (0-based).")) -> None:
    """Write a job's patches as SWE-bench predictions (JSONL), for `lancebench grade` or other harnesses.

    Example: lancebench predictions jobs/mini__mini-swe-agent__local -o preds.jsonl
    """
    try:
        job = load_job(job_dir)
        records = prediction_records(job_dir, job.results, attempt)
        choices = sum(r.kind == "choice" and r.attempt == attempt for r in job.results)
        left_out = (f" ({choices} choice trial(s) left out: a prediction is a patch, and a choice task is "
                    f"graded by the proposal it picks)") if choices else ""
        if not records:
            raise ConfigError(f"{job_dir}: no code trial of attempt {attempt} with a captured patch{left_out}")
        if out_path.is_dir():
            raise ConfigError(f"-o {out_path}: is a folder; name a file such as preds.jsonl")
        try:
            out_path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8",
                                errors="surrogateescape")
        except OSError as exc:
            raise ConfigError(f"-o {out_path}: cannot be written ({exc.strerror or exc})") from None
    except LancebenchError as exc:
        raise fail(exc) from None
    console.print(f"{len(records)} prediction(s) written to {out_path}{left_out}", highlight=False)


def register(app: typer.Typer) -> None:
    app.command("predictions")(predictions)
