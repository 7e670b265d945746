"""Backend settings travel as :class:`BackendOptions`, not as process variables: the CA bundle
reaches local environment builds through the option (``$LANCEBENCH_CA_BUNDLE`` only as the
documented fallback), ``make_backend`` hands the options to a ``module:Class`` plug-in, and a
command leaves the process environment as it found it."""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path

import pytest
from lbtest import TASKS
from typer.testing import CliRunner

from lancebench.backends import BackendOptions, make_backend
from lancebench.backends.local import LocalBackend
from lancebench.backends.local_environment import build_local_environment
from lancebench.backends.options import CA_BUNDLE_ENV
from lancebench.cli import app
from lancebench.errors import ConfigError
from lancebench.task.load import load_tasks

SYSTEM_CA = Path("/etc/ssl/certs/ca-certificates.crt")


class PluginBackend(LocalBackend):
    """A user's backend named ``test_backend_options:PluginBackend``: the local one under its own name."""

    name = "plugin"


def _ca_probe_task(shared: Path) -> Path:
    """A task whose build copies the CA bundle it was given ($SSL_CERT_FILE) into /env."""
    dest = shared / "ca-probe"
    shutil.copytree(TASKS / "pick", dest)
    (dest / "environment").mkdir()
    (dest / "environment" / "setup.sh").write_text('#!/bin/bash\ncp "$SSL_CERT_FILE" /env/build-ca.pem\n')
    with (dest / "task.toml").open("a") as fh:
        fh.write('\n[lancebench.local]\nsetup = "setup.sh"\n')
    return dest


def _bundle(shared: Path, name: str) -> Path:
    path = shared / name
    path.write_text(f"-----BEGIN CERTIFICATE-----\n{name}\n-----END CERTIFICATE-----\n")
    return path


def test_local_builds_trust_the_ca_bundle_option_then_the_documented_variable(shared, monkeypatch):
    [task], errors = load_tasks([_ca_probe_task(shared)])
    assert not errors
    given, fallback = _bundle(shared, "given.pem"), _bundle(shared, "fallback.pem")
    monkeypatch.setenv(CA_BUNDLE_ENV, str(fallback))

    def seen(options: BackendOptions, cache: str) -> str:  # a cache each: the bundle is not part of the digest
        (shared / cache).mkdir()
        built = asyncio.run(build_local_environment(task, cache_dir=shared / cache, options=options))
        return (built.env / "build-ca.pem").read_text()

    assert seen(BackendOptions(ca_bundle=given), "a") == given.read_text()
    assert seen(BackendOptions(), "b") == fallback.read_text()
    monkeypatch.delenv(CA_BUNDLE_ENV)
    if SYSTEM_CA.is_file():  # without either, the sandbox's own system bundle
        assert seen(BackendOptions(), "c") == SYSTEM_CA.read_text()


def test_make_backend_hands_the_options_to_builtins_and_plugins(tmp_path):
    options = BackendOptions(ca_bundle=False, checkout_repos=(tmp_path,))
    local = make_backend("local", options)
    plugin = make_backend("test_backend_options:PluginBackend", options)
    assert isinstance(local, LocalBackend) and local.options is options
    assert type(plugin) is PluginBackend and plugin.options is options
    assert make_backend("local").options == BackendOptions()
    with pytest.raises(ConfigError, match="unknown backend 'bogus'; choose one of local, docker or module:Class"):
        make_backend("bogus")
    with pytest.raises(ConfigError, match="backend 'no_such_module:X': cannot import no_such_module"):
        make_backend("no_such_module:X")


def test_run_with_ca_bundle_sets_no_process_variable(shared, monkeypatch):
    monkeypatch.delenv(CA_BUNDLE_ENV, raising=False)
    bundle = _bundle(shared, "run.pem")
    res = CliRunner().invoke(app, ["run", "-p", str(TASKS / "pick"), "-a", "oracle", "-o", str(shared / "jobs"),
                                   "--ca-bundle", str(bundle)])
    assert res.exit_code == 0, res.output
    assert CA_BUNDLE_ENV not in os.environ
    res = CliRunner().invoke(app, ["run", "-p", str(TASKS / "pick"), "-a", "oracle", "-o", str(shared / "jobs"),
                                   "--ca-bundle", str(shared / "missing.pem")])
    assert res.exit_code == 2 and "is not a file" in res.output
