"""Reading the verifier's rewards (Harbor's convention) from the folder only the harness and the
verifier can write: ``reward.json`` (a flat JSON object of numbers) or ``reward.txt`` (one number,
returned as ``{"reward": x}``).

Rules (``docs/tasks.md``, "Reward files"):

- One file: it is the rewards (Harbor reads ``reward.json`` first, then ``reward.txt``).
- Both files: they must agree (``reward.json``'s ``reward`` equals ``reward.txt``); otherwise the
  run is broken, never the higher value, since the code under test runs inside the verifier and
  may have planted one of them.
- ``reward.txt`` empty (or only white space) and no ``reward.json``: the task's verifier
  excludes the trial (:class:`RewardExcluded`): the trial is ``invalid`` with that reason, and
  it is not re-graded.
- A file that exists but holds no usable number (``{}``, text, ``NaN``, ``true``) is an error,
  never a reward of 0.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from lancebench.errors import LancebenchError

MAX_BYTES = 1_000_000


class RewardError(LancebenchError):
    """The reward files are malformed or contradict each other (the message names the file and the fix)."""


class RewardExcluded(RewardError):
    """``reward.txt`` is empty and there is no ``reward.json``: the task's verifier asks to exclude
    the trial (Senior SWE-Bench's convention for a run it cannot judge)."""


def _text(path: Path) -> str | None:
    if path.is_symlink():
        raise RewardError(f"{path}: is a symlink; write the reward as a regular file")
    if not path.is_file():
        return None
    if path.stat().st_size > MAX_BYTES:
        raise RewardError(f"{path}: larger than {MAX_BYTES} bytes")
    return path.read_text(errors="replace").strip()


def _numbers(path: Path, data: object) -> dict[str, float]:
    if not isinstance(data, dict):
        raise RewardError(f"{path}: must be a JSON object of numbers")
    if not data:
        raise RewardError(f"{path}: holds no number; write a flat object such as {{\"reward\": 1}}")
    out: dict[str, float] = {}
    for key, value in data.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not _finite(value):
            raise RewardError(f"{path}: key '{key}' is {value!r}; every value must be a finite number")
        out[str(key)] = float(value)
    return out


def _finite(value: float) -> bool:
    """Whether ``value`` is a finite float; a JSON integer too large for a float is not."""
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def _read_json(path: Path) -> dict[str, float] | None:
    text = _text(path)
    if text is None:
        return None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:  # RecursionError: arrays nested past Python's limit
        raise RewardError(f"{path}: invalid JSON ({exc}); write a flat object such as {{\"reward\": 1}}") from None
    return _numbers(path, data)


def _read_txt(path: Path) -> float | None:
    """The number in ``reward.txt``; None when absent; NaN when empty (the exclusion signal)."""
    text = _text(path)
    if text is None:
        return None
    if not text:
        return math.nan
    try:
        value = float(text)
    except ValueError:
        raise RewardError(f"{path}: {text[:80]!r} is not a number; write one number such as 1 or 0") from None
    if not math.isfinite(value):
        raise RewardError(f"{path}: {text[:80]!r} is not a finite number")
    return value


def read_rewards(folder: Path) -> dict[str, float] | None:
    """Rewards from ``folder`` (see the module docstring), or None when neither file exists.

    Raises :class:`RewardExcluded` for an empty ``reward.txt`` without ``reward.json``;
    :class:`RewardError` for a symlinked, oversized or malformed file, an empty object, a
    non-number value (booleans included), a non-finite number, or two files that disagree.
    """
    data = _read_json(folder / "reward.json")
    txt = _read_txt(folder / "reward.txt")
    if txt is not None and math.isnan(txt):
        if data is None:
            raise RewardExcluded(f"{folder / 'reward.txt'} is empty: the task's verifier excluded this trial")
        raise RewardError(f"{folder / 'reward.txt'} is empty but reward.json holds {data}: "
                          "a verifier writes one of them (the code under test may have written the other)")
    if data is not None and txt is not None and data.get("reward") != txt:
        raise RewardError(f"reward.json says reward={data.get('reward')} but reward.txt says {txt:g} in {folder}: "
                          "a verifier writes one of them, or the same value in both (the code under test may "
                          "have written the other)")
    if data is not None:
        return data
    return None if txt is None else {"reward": txt}
