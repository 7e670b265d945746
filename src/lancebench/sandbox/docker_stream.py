"""One ``docker exec`` of a :class:`lancebench.sandbox.docker.DockerSandbox` as a live stream, through
aiodocker: :class:`ExecStream` reads stdout/stderr into capped buffers (after the wrapper's pid
line, see :mod:`lancebench.sandbox.docker_shell`) and feeds stdin; :func:`exit_code` reads the
finished exec's exit code."""

from __future__ import annotations

import asyncio
from typing import Any

from lancebench.errors import SandboxError
from lancebench.sandbox import docker_engine as engine
from lancebench.sandbox.docker_shell import PID_PREFIX
from lancebench.sandbox.output import CappedBuffer


class ExecStream:
    """One exec's attach stream, through aiodocker (Docker's raw-stream protocol: stream 1 is
    stdout, 2 stderr). The first stdout line is the wrapper's pid (``PID_PREFIX``), kept in
    ``pid``, not in output."""

    def __init__(self, out: CappedBuffer, err: CappedBuffer):
        self.out, self.err = out, err
        self.pid: int | None = None
        self.pid_seen = asyncio.Event()
        self._first = bytearray()
        self._stream: Any = None

    async def open(self, client: Any, cid: str, argv: list[str], *, stdin: bool, environment: dict[str, str],
                   workdir: str, user: str, where: str) -> Any:
        """Create the exec in container ``cid`` and attach to it; returns the aiodocker ``Exec``.
        Raises :class:`SandboxError` when the engine refuses or cannot be reached."""
        import aiodocker
        import aiohttp

        try:
            exe = await client.containers.container(cid).exec(argv, stdout=True, stderr=True, stdin=stdin, tty=False,
                                                              environment=environment, workdir=workdir, user=user)
            stream = exe.start(detach=False)
            await stream.__aenter__()  # the HTTP upgrade: the stream is live from here
        except aiodocker.DockerError as exc:
            raise SandboxError(f"docker exec failed to start in {where}: {exc.message}") from exc
        except (aiohttp.ClientError, OSError) as exc:
            raise SandboxError(f"could not reach the Docker engine for {where}: {exc}; {engine.START_HINT}") from exc
        self._stream = stream
        return exe

    async def pump(self, stdin: bytes | None) -> None:
        """Read the stream to its end into ``out``/``err``, feeding ``stdin`` (then its end) meanwhile."""
        feeder = asyncio.ensure_future(self._feed(stdin)) if stdin is not None else None
        try:
            while (msg := await self._stream.read_out()) is not None:
                if msg.stream == 2:
                    self.err.write(msg.data)
                else:
                    self._stdout(msg.data)
        finally:
            if feeder is not None and not feeder.done():
                feeder.cancel()
            if not self.pid_seen.is_set() and self._first:
                self.out.write(bytes(self._first))
                self._first.clear()

    async def close(self) -> None:
        if self._stream is not None:
            await self._stream.close()

    def _stdout(self, chunk: bytes) -> None:
        if self.pid_seen.is_set():
            self.out.write(chunk)
            return
        self._first += chunk
        nl = self._first.find(b"\n")
        if nl < 0 and len(self._first) < 64:
            return
        if nl >= 0:
            line, rest = bytes(self._first[:nl]), bytes(self._first[nl + 1:])
        else:
            line, rest = bytes(self._first), b""
        if line.startswith(PID_PREFIX) and line[len(PID_PREFIX):].isdigit():
            self.pid = int(line[len(PID_PREFIX):])
            self._first.clear()
            self.pid_seen.set()
            if rest:
                self.out.write(rest)
        else:  # not our wrapper's line (should not happen): keep everything as output
            self.pid_seen.set()
            self.out.write(bytes(self._first))
            self._first.clear()

    async def _feed(self, data: bytes) -> None:
        """Write ``data`` to the command's stdin, then end it (a half-close: the output still
        flows; aiodocker's own ``close`` would end both directions)."""
        try:
            await self._stream.write_in(data)
            transport = self._stream._resp.connection.transport
            if transport is not None and transport.can_write_eof():
                transport.write_eof()
        except (BrokenPipeError, ConnectionResetError, RuntimeError):
            pass


async def exit_code(exe: Any) -> int | None:
    """The exit code of a finished exec (the engine may need a moment to record it); None when it
    still runs after two seconds."""
    for _ in range(100):
        info = await exe.inspect()
        if not info.get("Running"):
            return info.get("ExitCode")
        await asyncio.sleep(0.02)
    return None
