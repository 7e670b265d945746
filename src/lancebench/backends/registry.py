"""Choosing a backend by name: ``local`` (bubblewrap), ``docker``, or a user's ``module:Class``
(loaded by :func:`lancebench.plugins.load_object`, the one plug-in loader)."""

from __future__ import annotations

from lancebench.backends.options import BackendOptions
from lancebench.errors import ConfigError
from lancebench.plugins import load_object
from lancebench.sandbox.backend import Backend

BACKENDS = {"local": "lancebench.backends.local:LocalBackend",
            "docker": "lancebench.backends.docker:DockerBackend"}


def make_backend(name: str, options: BackendOptions | None = None) -> Backend:
    """A backend by name (``local``, ``docker``) or ``module:Class``, built as
    ``Class(options=options)`` (a plug-in's constructor takes that one keyword argument; see
    :class:`BackendOptions`). Raises :class:`ConfigError` for an unknown name or a class that
    cannot be imported."""
    spec = BACKENDS.get(name, name)
    if ":" not in spec:
        raise ConfigError(f"unknown backend '{name}'; choose one of {', '.join(BACKENDS)} or module:Class")
    cls = load_object(spec, "backend")
    return cls(options=options or BackendOptions())
