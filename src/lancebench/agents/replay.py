"""Grading given patches (SWE-bench's predictions format) through the normal trial flow: the
"agent" applies the prediction's patch in its sandbox, then capture and grading run as usual.

A predictions file is JSON (a list of objects, or an object keyed by instance id) or JSONL, each
record with ``instance_id``, ``model_name_or_path`` and ``model_patch``.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from pathlib import Path

from lancebench.agents.base import AgentContext, AgentOutcome
from lancebench.errors import ConfigError

REQUIRED = ("instance_id", "model_name_or_path", "model_patch")


def read_predictions(path: Path) -> list[dict]:
    """Records of a predictions file. Raises :class:`ConfigError` naming the file, the record and
    the missing field."""
    text = Path(path).read_text(encoding="utf-8")
    try:
        data = json.loads(text)
        if isinstance(data, dict):  # one record, or a map keyed by instance id
            records = [data] if "instance_id" in data else list(data.values())
        else:
            records = data
    except ValueError:
        records = []
        for n, line in enumerate(text.splitlines(), 1):
            if line.strip():
                try:
                    records.append(json.loads(line))
                except ValueError as exc:
                    raise ConfigError(f"{path}: line {n} is not JSON ({exc}); use JSON or JSONL") from None
    if not isinstance(records, list):
        raise ConfigError(f"{path}: expected a list of predictions")
    for i, rec in enumerate(records):
        missing = [k for k in REQUIRED if not isinstance(rec, dict) or k not in rec]
        if missing:
            raise ConfigError(f"{path}: prediction {i} lacks {', '.join(missing)} (each needs {', '.join(REQUIRED)})")
        if rec["model_patch"] is None:
            rec["model_patch"] = ""
    return records


class PatchAgent:
    """Applies ``patches[task_name]`` with ``git apply`` in the agent sandbox (no patch: does nothing).
    A patch's lone surrogates (U+DC80-U+DCFF, how ``predictions`` writes bytes that are not UTF-8)
    are written back as those bytes."""

    name = "predictions"

    def __init__(self, patches: dict[str, str]):
        self.patches = patches

    def fingerprint(self, task_name: str) -> str:
        """sha256 (12 hex digits) of the patch given for ``task_name``: part of the trial's identity."""
        return hashlib.sha256(self.patches.get(task_name, "").encode("utf-8", "surrogateescape")).hexdigest()[:12]

    async def run(self, ctx: AgentContext) -> AgentOutcome:
        patch = self.patches.get(ctx.task_name, "")
        if not patch.strip():
            return AgentOutcome(message="empty prediction")
        with tempfile.TemporaryDirectory() as tmp:
            p = Path(tmp) / "prediction.diff"
            # byte for byte: `predictions` keeps bytes that are not UTF-8 as lone surrogates
            p.write_bytes((patch if patch.endswith("\n") else patch + "\n").encode("utf-8", "surrogateescape"))
            await ctx.sandbox.put(p, "/tmp/lancebench/prediction.diff")
        res = await ctx.sandbox.exec(["git", "apply", "--binary", "--whitespace=nowarn",
                                      "/tmp/lancebench/prediction.diff"],
                                     cwd=ctx.workdir, timeout=300)
        (ctx.logs_dir / "apply.log").write_text(res.output)
        if not res.ok:
            return AgentOutcome(exit="error", message=f"prediction did not apply: {res.stderr[-500:]}",
                                patch_applied=False)
        return AgentOutcome(message="prediction applied", patch_applied=True)
