"""A command's standard streams: capped capture of its output (the head and the tail are kept,
the middle is counted and dropped, so a command printing gigabytes costs bounded memory) and its
input fed."""

from __future__ import annotations

import asyncio


class CappedBuffer:
    """Keeps the first ``limit // 2`` and the last ``limit // 2`` bytes written to it.

    ``cut`` is the number of bytes dropped between them. ``text()`` decodes (UTF-8, replacing
    invalid bytes) and states the cut inline.
    """

    def __init__(self, limit: int):
        self.half = max(limit // 2, 1)
        self.head = bytearray()
        self.tail = bytearray()
        self.cut = 0

    def write(self, data: bytes) -> None:
        room = self.half - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if not data:
            return
        self.tail += data
        excess = len(self.tail) - self.half
        if excess > 0:
            self.cut += excess
            del self.tail[:excess]

    def text(self) -> str:
        out = self.head.decode("utf-8", errors="replace")
        if self.cut:
            out += f"\n[... {self.cut} bytes of output cut by lancebench ...]\n"
        return out + self.tail.decode("utf-8", errors="replace")


async def drain(stream: asyncio.StreamReader | None, buf: CappedBuffer) -> None:
    """Read ``stream`` to its end into ``buf`` (64 KiB at a time)."""
    if stream is None:
        return
    while chunk := await stream.read(65536):
        buf.write(chunk)


async def feed(proc: asyncio.subprocess.Process, data: bytes | None) -> None:
    """Write ``data`` to ``proc``'s standard input and close it (nothing when ``data`` is None or
    the process has no input pipe); a process that stopped reading (a broken pipe) is not an error."""
    if data is None or proc.stdin is None:
        return
    try:
        proc.stdin.write(data)
        await proc.stdin.drain()
    except (BrokenPipeError, ConnectionResetError):
        pass
    finally:
        proc.stdin.close()
