"""Backends: how a trial gets its environment and sandboxes. ``local`` (:mod:`.local`, bubblewrap),
``docker`` (:mod:`.docker`), or a user's ``module:Class``, chosen by :func:`make_backend` with the
settings in :class:`BackendOptions`. Above both :mod:`lancebench.sandbox` (the sandboxes and the
:class:`~lancebench.sandbox.backend.Backend` protocol) and :mod:`lancebench.caches` (caches,
host checkouts)."""

from lancebench.backends.options import BackendOptions
from lancebench.backends.registry import BACKENDS, make_backend

__all__ = ["BACKENDS", "BackendOptions", "make_backend"]
