"""Settings a backend receives from the command that chose it (:class:`BackendOptions`).

They travel as a value, from the command through the job and the executor (to each Ray node,
pickled with the trial) to :func:`lancebench.backends.registry.make_backend`: no setting reaches a
backend through a variable of the process environment that the command line sets. Two variables
stay as user-facing fallbacks because the docs promise them (docs/docker.md, docs/swelancer.md):
``LANCEBENCH_CA_BUNDLE`` and ``LANCEBENCH_CHECKOUT_REPOS``; they are read here only, on the
machine where the backend runs.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from lancebench.caches.checkout import ALLOWED_ENV as CHECKOUT_REPOS_ENV  # os.pathsep-separated repositories

CA_BUNDLE_ENV = "LANCEBENCH_CA_BUNDLE"  # a CA bundle file for environment builds, when no option gives one


@dataclass(frozen=True)
class BackendOptions:
    """Settings of a backend (every field has a default, so ``BackendOptions()`` is a valid choice).

    - ``ca_bundle``: a CA bundle file (a complete one: public roots plus yours) trusted by
      environment builds (``--ca-bundle``); ``None`` falls back to ``$LANCEBENCH_CA_BUNDLE`` (and
      for docker builds then to ``$SSL_CERT_FILE`` / ``$PIP_CERT``); ``False`` builds without one.
    - ``checkout_repos``: host git repositories that ``[lancebench.local.checkout]`` may snapshot
      (``--repo-path``), in addition to those listed in ``$LANCEBENCH_CHECKOUT_REPOS``. A task
      folder alone can never make the harness read a repository of this machine.

    Picklable (it rides with each trial to Ray workers). A new option is a field here, read by
    the backend that needs it (docs/architecture.md).
    """

    ca_bundle: Path | bool | None = None
    checkout_repos: tuple[Path, ...] = ()

    def ca_bundle_file(self) -> Path | bool | None:
        """``ca_bundle``, else ``$LANCEBENCH_CA_BUNDLE`` as a path, else None (False stays False)."""
        if self.ca_bundle is not None:
            return self.ca_bundle
        env = os.environ.get(CA_BUNDLE_ENV)
        return Path(env) if env else None

    def allowed_repos(self) -> tuple[Path, ...]:
        """Resolved paths of the repositories tasks may snapshot: ``checkout_repos`` plus those of
        ``$LANCEBENCH_CHECKOUT_REPOS``, without duplicates, in that order."""
        from_env = [Path(p) for p in os.environ.get(CHECKOUT_REPOS_ENV, "").split(os.pathsep) if p]
        listed = [*self.checkout_repos, *from_env]
        return tuple(dict.fromkeys(p.expanduser().resolve() for p in listed))
