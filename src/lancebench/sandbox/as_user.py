"""A sandbox whose commands run as a given user by default (Harbor's per-phase ``user``)."""

from __future__ import annotations

from pathlib import Path

from lancebench.sandbox.base import AppProcess, ExecResult, Sandbox, SandboxSpec


class AsUser(Sandbox):
    """``sandbox`` with every :meth:`exec` that names no user run as ``user`` (a name or a uid
    as the backend's ``exec`` takes it; None: the sandbox's default). Everything else is the
    wrapped sandbox's. The docker backend honours it; the local sandbox runs every command as
    its one user whatever is asked."""

    def __init__(self, sandbox: Sandbox, user: str | None):
        self.inner, self.user = sandbox, user
        self.spec: SandboxSpec = sandbox.spec

    async def start(self) -> None:
        await self.inner.start()

    async def exec(self, command: str | list[str], *, cwd: str | None = None, env: dict[str, str] | None = None,
                   timeout: float | None = None, stdin: bytes | None = None, user: str | None = None) -> ExecResult:
        return await self.inner.exec(command, cwd=cwd, env=env, timeout=timeout, stdin=stdin,
                                     user=user if user is not None else self.user)

    async def exec_with_app(self, command: str | list[str], app: AppProcess, *, cwd: str | None = None,
                            env: dict[str, str] | None = None, timeout: float | None = None,
                            user: str | None = None) -> tuple[ExecResult, str]:
        return await self.inner.exec_with_app(command, app, cwd=cwd, env=env, timeout=timeout,
                                              user=user if user is not None else self.user)

    async def host_uid(self, user: str | None = None) -> int | None:
        return await self.inner.host_uid(user if user is not None else self.user)

    async def put(self, src: Path, dest: str) -> None:
        await self.inner.put(src, dest)

    async def get(self, src: str, dest: Path, *, max_bytes: int | None = None) -> None:
        await self.inner.get(src, dest, max_bytes=max_bytes)

    async def stop(self) -> None:
        await self.inner.stop()


def as_user(sandbox: Sandbox, user: str | None) -> Sandbox:
    """``sandbox`` itself when ``user`` is None, else :class:`AsUser` of it."""
    return sandbox if user is None else AsUser(sandbox, user)
