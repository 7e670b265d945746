"""Reading the verifier's rewards (Harbor's convention) from the folder only the harness and the
verifier can write: ``reward.json`` (a flat JSON object of numbers) or ``reward.txt`` (one number,
returned as ``{"reward": x}``). ``reward.json`` wins when both exist."""

from __future__ import annotations

import json
import math
from pathlib import Path

from lancebench.errors import LancebenchError

MAX_BYTES = 1_000_000


class RewardError(LancebenchError):
    """The reward file exists but is malformed (the message names the file and the fix)."""


def read_rewards(folder: Path) -> dict[str, float] | None:
    """Rewards from ``folder``, or None when neither file exists.

    Raises :class:`RewardError` for a symlinked, oversized or malformed file, a non-number value
    (booleans included) or a non-finite number.
    """
    for name in ("reward.json", "reward.txt"):
        path = folder / name
        if path.is_symlink():
            raise RewardError(f"{path}: is a symlink; write the reward as a regular file")
        if not path.is_file():
            continue
        if path.stat().st_size > MAX_BYTES:
            raise RewardError(f"{path}: larger than {MAX_BYTES} bytes")
        text = path.read_text(errors="replace").strip()
        if name == "reward.txt":
            try:
                value = float(text)
            except ValueError:
                raise RewardError(f"{path}: {text[:80]!r} is not a number; write one number such as 1 or 0") from None
            data = {"reward": value}
        else:
            try:
                data = json.loads(text)
            except ValueError as exc:
                raise RewardError(f"{path}: invalid JSON ({exc}); write a flat object such as {{\"reward\": 1}}") from None
            if not isinstance(data, dict):
                raise RewardError(f"{path}: must be a JSON object of numbers")
        out: dict[str, float] = {}
        for key, value in data.items():
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise RewardError(f"{path}: key '{key}' is {value!r}; every value must be a finite number")
            out[str(key)] = float(value)
        return out
    return None
