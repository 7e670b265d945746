"""JSON values as Erlang's external term format (ETF), for the ``mix-test`` validation driver.

The driver's wrapper reads a story's cases with ``:erlang.binary_to_term(bytes, [:safe])``, which
every Erlang/OTP has: Elixir before 1.18 has no ``JSON`` module, and ``Jason`` is a dependency
a project may not have (Debian's Elixir 1.14 has neither, so the cases could not be read and every
story was a ``script-error``). Values come out as Jason would decode them: objects as maps with
string keys, arrays as lists, strings as binaries, ``true``/``false``/``null`` as the atoms
``true``/``false``/``nil``, integers of any size, floats as doubles.

Format: https://www.erlang.org/doc/apps/erts/erl_ext_dist.html (the version byte 131, then
``SMALL_INTEGER_EXT`` 97, ``INTEGER_EXT`` 98, ``LARGE_BIG_EXT`` 111, ``NEW_FLOAT_EXT`` 70,
``SMALL_ATOM_UTF8_EXT`` 119, ``BINARY_EXT`` 109, ``NIL_EXT`` 106, ``LIST_EXT`` 108, ``MAP_EXT`` 116).
"""

from __future__ import annotations

import math
import struct

_ATOMS = {True: b"true", False: b"false", None: b"nil"}


def _int(n: int) -> bytes:
    if 0 <= n < 256:
        return struct.pack(">BB", 97, n)
    if -(2 ** 31) <= n < 2 ** 31:
        return struct.pack(">Bi", 98, n)
    digits = abs(n).to_bytes((abs(n).bit_length() + 7) // 8, "little")
    return struct.pack(">BIB", 111, len(digits), int(n < 0)) + digits


def _term(value: object) -> bytes:
    if value is None or isinstance(value, bool):
        name = _ATOMS[value]
        return struct.pack(">BB", 119, len(name)) + name
    if isinstance(value, int):
        return _int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{value} has no Erlang term (JSON has none either)")
        return struct.pack(">Bd", 70, value)
    if isinstance(value, str):
        data = value.encode("utf-8", "surrogatepass")
        return struct.pack(">BI", 109, len(data)) + data
    if isinstance(value, (list, tuple)):
        if not value:
            return b"\x6a"
        return struct.pack(">BI", 108, len(value)) + b"".join(_term(v) for v in value) + b"\x6a"
    if isinstance(value, dict):
        return struct.pack(">BI", 116, len(value)) + b"".join(_term(str(k)) + _term(v) for k, v in value.items())
    raise ValueError(f"a value of type {type(value).__name__} has no JSON form")


def term_to_binary(value: object) -> bytes:
    """``value`` (a JSON value: dict with string keys, list, str, int, float, bool, None) as the
    bytes ``:erlang.term_to_binary/1`` would give for its Jason-decoded form. Raises ValueError
    for a value JSON cannot hold (NaN, infinities, other types)."""
    return b"\x83" + _term(value)
