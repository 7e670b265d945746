"""Choosing a backend by name: ``local`` (bubblewrap), ``docker``, or a user's ``module:Class``
(loaded by :func:`lancebench.plugins.load_object`, the one plug-in loader)."""

from __future__ import annotations

import types

from lancebench.backends.options import BackendOptions
from lancebench.errors import ConfigError, TaskError
from lancebench.plugins import load_object
from lancebench.sandbox.backend import Backend
from lancebench.sandbox.base import Sandbox
from lancebench.task.model import Task
from lancebench.task.settings import needs_network_filter

BACKENDS = {"local": "lancebench.backends.local:LocalBackend",
            "docker": "lancebench.backends.docker:DockerBackend"}


def backend_class(name: str) -> type[Backend]:
    """The class of the backend ``name`` (``local``, ``docker``, or ``module:Class``), imported but
    not built. Raises :class:`ConfigError` for an unknown name or a class that cannot be imported.
    A plug-in class that does not subclass :class:`Backend` gets the protocol's hooks it lacks
    (their defaults, :meth:`Backend.capabilities` among them) mixed in, and the sandboxes it opens
    get :class:`Sandbox`'s ``async with`` (:class:`_PluginOpen`)."""
    spec = BACKENDS.get(name, name)
    if ":" not in spec:
        raise ConfigError(f"unknown backend '{name}'; choose one of {', '.join(BACKENDS)} or module:Class")
    cls = load_object(spec, "backend")
    if isinstance(cls, type) and Backend not in cls.__mro__:  # a plug-in: the protocol's hooks' defaults
        cls = types.new_class(cls.__name__, (_PluginOpen, cls, Backend))
    return cls


class _PluginOpen:
    """Put first in a plug-in backend's class: a sandbox its ``open`` returns that is not an async
    context manager (it defines ``start`` and ``stop`` only) gets :class:`Sandbox`'s
    ``__aenter__``/``__aexit__`` mixed into its class, the way the backend gets the protocol's
    hooks, so every caller can write ``async with backend.open(...) as sandbox``."""

    def open(self, *args, **kwargs):
        box = super().open(*args, **kwargs)  # type: ignore[misc]  # the plug-in's own open, next in the MRO
        if not hasattr(box, "__aenter__") and hasattr(box, "start") and hasattr(box, "stop"):
            box.__class__ = _with_sandbox_defaults(type(box))
        return box


_MIXED: dict[type, type] = {}


def _with_sandbox_defaults(cls: type) -> type:
    """``cls`` with :class:`Sandbox`'s defaults mixed in (one class per plug-in sandbox class)."""
    if cls not in _MIXED:
        _MIXED[cls] = types.new_class(cls.__name__, (cls, Sandbox))
    return _MIXED[cls]


def make_backend(name: str, options: BackendOptions | None = None) -> Backend:
    """A backend by name (``local``, ``docker``) or ``module:Class`` (:func:`backend_class`), built
    as ``Class(options=options)`` (a plug-in's constructor takes that one keyword argument; see
    :class:`BackendOptions`). Raises :class:`ConfigError` for an unknown name or a class that
    cannot be imported."""
    return backend_class(name)(options=options or BackendOptions())  # type: ignore[call-arg]  # see the docstring


def cannot_run(task: Task, backend: str) -> TaskError | None:
    """Why ``backend`` (a name, as for :func:`make_backend`) cannot run ``task`` as its author
    meant, as a one-line :class:`TaskError` naming ``task.toml`` and the fix; None when it can.
    Beyond what no lancebench sandbox runs (an OS other than Linux, accelerators), it reads the
    backend class's :meth:`Backend.capabilities` (a plug-in's default: it decides for itself).
    Checked when a job is planned, so no trial is recorded for a task that could never run.
    Raises :class:`ConfigError` for an unknown backend."""
    env, toml = task.config.environment, task.paths.task_toml
    caps = backend_class(backend).capabilities()
    problem, fix, key = None, None, None
    if env.os != "linux":
        problem, key, fix = f"a {env.os} environment", "environment.os", "lancebench runs Linux environments only"
    elif env.gpus or env.gpu_types or env.tpu:
        problem, key, fix = "needs accelerators", "environment.gpus", "lancebench sandboxes have no GPU or TPU"
    elif task.kind == "code" and caps.builds == "local" and task.lb.local is None:
        has_docker = task.paths.dockerfile.is_file() or env.docker_image
        problem, key = f"no [lancebench.local] recipe, so the {backend} backend cannot build it", "lancebench.local"
        fix = "run it with --backend docker" if has_docker else 'add [lancebench.local] setup = "setup.sh"'
    elif task.kind == "code" and caps.builds == "docker" and not (task.paths.dockerfile.is_file()
                                                                  or env.docker_image):
        problem, key = "no environment/Dockerfile and no docker_image", "environment.docker_image"
        fix = "add environment/Dockerfile, or run it with --backend local"
    elif (key := needs_network_filter(task)) is not None and caps.network_filter is not None:
        problem, fix = caps.network_filter
    if problem is None:
        return None
    return TaskError(toml, f"--backend {backend} cannot run this task: {problem}", key=key, fix=fix,
                     task_dir=task.paths.root)
