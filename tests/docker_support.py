"""Shared by the tests that need a Docker engine: why they must be skipped here, if they must."""

from __future__ import annotations

BASE = "debian:bookworm-slim"  # made locally by .ci/docker-setup.sh (debootstrap + docker import)


def docker_skip_reason(base: str = BASE) -> str | None:
    """None when an engine answers and holds ``base``; else the reason, with the command that fixes it."""
    import docker

    from lancebench.sandbox.docker_engine import client, engine_problem
    problem = engine_problem()
    if problem:
        return f"no Docker engine: {problem}"
    try:
        client().images.get(base)
    except docker.errors.ImageNotFound:
        return f"image {base} is missing: run .ci/docker-setup.sh to build it locally (debootstrap + docker import)"
    return None
