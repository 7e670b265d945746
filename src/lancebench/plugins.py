"""Loading a plug-in named ``module.path:Name`` (an agent, a backend, a dataset adapter): the one
place lancebench imports user code by name. At the bottom of the layers: it imports only
:mod:`lancebench.errors`, so every registry (agents, datasets, backends) can use it."""

from __future__ import annotations

import importlib
from typing import Any

from lancebench.errors import ConfigError


def load_object(spec: str, what: str) -> Any:
    """Import ``module:Name`` and return the object. ``what`` names the kind of plug-in in errors
    (``"backend"``, ``"agent"``). Raises :class:`ConfigError` naming the spec when the spec is not
    ``module:Name``, the module cannot be imported, or it has no such name."""
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise ConfigError(f"{what} '{spec}' must look like module.path:ClassName")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ConfigError(f"{what} '{spec}': cannot import {module_name} ({exc})") from exc
    try:
        return getattr(module, attr)
    except AttributeError:
        raise ConfigError(f"{what} '{spec}': {module_name} has no {attr}") from None
