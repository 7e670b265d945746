"""Where a network allowlist cannot be enforced, the task fails when the job is planned, with one
line naming the key and the fix, and no trial is recorded (never a run with a wider network)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from harbor_support import FIXTURES, harbor_python

from lancebench.backends.registry import cannot_run
from lancebench.errors import TaskError, TaskErrors
from lancebench.task import load_task
from lancebench.task.harbor import check_hosts
from lancebench.task.settings import needs_network_filter

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core"))
from lbtest import TASKS, derive_task, lb  # noqa: E402


def _allowlist_task(tmp_path) -> Path:
    """verifier-llm (it has a local recipe; a Dockerfile is added) with its verifier limited to one host."""
    dest = tmp_path / "allow"
    shutil.copytree(FIXTURES / "verifier-llm", dest)
    (dest / "environment" / "Dockerfile").write_text("FROM debian:bookworm-slim\n")
    toml = dest / "task.toml"
    toml.write_text(toml.read_text().replace('network_mode = "public"',
                                             'network_mode = "allowlist"\nallowed_hosts = ["10.1.2.3"]'))
    return dest


def test_local_backend_refuses_an_allowlist_naming_the_key(tmp_path):
    task = load_task(_allowlist_task(tmp_path))
    assert needs_network_filter(task) == "verifier.network_mode"
    error = cannot_run(task, "local")
    assert error is not None and error.key == "verifier.network_mode"
    assert "allowlist" in str(error) and "--backend docker" in str(error) and "\n" not in str(error)


def test_planning_reads_a_plugin_backends_declared_capabilities(tmp_path, monkeypatch):
    """A plug-in backend that declares no capabilities decides for itself (the protocol's
    default); one that declares it has no network filter is refused the allowlist task at plan
    time with its own words, as the local backend is."""
    (tmp_path / "caps_backend_r27.py").write_text(textwrap.dedent('''
        from lancebench.sandbox.backend import Capabilities


        class Bare:
            def __init__(self, options=None):
                self.options = options


        class Closed(Bare):
            @classmethod
            def capabilities(cls):
                return Capabilities(network_filter=("it has no firewall", "use --backend docker"))
    '''))
    monkeypatch.syspath_prepend(str(tmp_path))
    task = load_task(_allowlist_task(tmp_path))
    try:
        assert cannot_run(task, "caps_backend_r27:Bare") is None
        error = cannot_run(task, "caps_backend_r27:Closed")
    finally:
        sys.modules.pop("caps_backend_r27", None)
    assert error is not None and error.key == "verifier.network_mode" and error.fix == "use --backend docker"
    assert "--backend caps_backend_r27:Closed cannot run this task: it has no firewall" in str(error)


def test_docker_backend_refuses_it_with_a_remote_engine(tmp_path, monkeypatch):
    task = load_task(_allowlist_task(tmp_path))
    monkeypatch.setenv("DOCKER_HOST", "tcp://10.9.9.9:2375")
    error = cannot_run(task, "docker")
    assert error is not None and error.key == "verifier.network_mode" and "remote" in str(error)
    monkeypatch.delenv("DOCKER_HOST")
    if os.geteuid() == 0 and shutil.which("nsenter") and shutil.which("nft"):
        assert cannot_run(task, "docker") is None


def test_public_and_no_network_need_no_filter():
    assert needs_network_filter(load_task(FIXTURES / "verifier-llm")) is None


def test_run_on_local_stops_at_plan_time_with_one_line(tmp_path):
    jobs = tmp_path / "jobs"
    proc = lb("run", "-p", _allowlist_task(tmp_path), "-a", "oracle", "-o", jobs, "--job-name", "j",
              env={"LB_JUDGE_BASE_URL": "http://x", "LB_JUDGE_API_KEY": "sk-test-1234"})
    text = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "verifier.network_mode" in text and "--backend docker" in text, text
    assert "Traceback" not in text
    assert not list(jobs.rglob("result.json"))


HOSTS = ["API.Example.com.", "*.x.example", "1.2.3.4", "10.0.0.0/8", "FE80::0001", "2001:DB8::/32"]
BAD = ["10.0.0.1/8", "*.1.2.3.4", "http://x.example", "x.example:443", "x.example/path", "*x.example", "a..b"]


def test_allowed_hosts_are_checked_and_normalised_as_harbor_does():
    assert check_hosts(HOSTS) == ["api.example.com", "*.x.example", "1.2.3.4", "10.0.0.0/8", "fe80::1",
                                  "2001:db8::/32"]
    for bad in BAD:  # a range with host bits set would otherwise widen silently
        with pytest.raises(ValueError, match="allowed_hosts entry"):
            check_hosts([bad])


@pytest.mark.parametrize("bad,fix", [("10.0.0.1/8", "write the range as '10.0.0.0/8'"),
                                     ("FE80::1/64", "write the range as 'fe80::/64'"),
                                     ("https://Files.Example.org:443/x",
                                      "write the host name alone ('files.example.org')"),
                                     ("x.example:443", "without a port or path"),
                                     ("x.example/path", "without a port or path")])
def test_a_bad_allowed_host_names_its_fix(bad, fix):
    # before: a URL or a host with a port was told to be "an IP address or a CIDR range"
    with pytest.raises(ValueError) as exc:
        check_hosts([bad])
    assert fix in str(exc.value)


def test_harbor_agrees_on_every_entry():
    python = harbor_python()
    if python is None:
        pytest.skip("no Harbor venv (.venv-harbor from scripts/setup.sh tests, or $LANCEBENCH_HARBOR_PYTHON)")
    script = ("import json, sys\nfrom harbor.models.task.config import normalize_allowed_hosts as n\nout = []\n"
              "for h in json.loads(sys.argv[1]):\n    try: out.append(n([h])[0])\n"
              "    except ValueError: out.append(None)\nprint(json.dumps(out))")
    proc = subprocess.run([python, "-c", script, json.dumps(HOSTS + BAD)], capture_output=True, text=True, check=True)
    theirs = json.loads(proc.stdout)

    def ours(h):
        try:
            return check_hosts([h])[0]
        except ValueError:
            return None
    assert [ours(h) for h in HOSTS + BAD] == theirs


def test_lancebench_allow_hosts_are_checked_at_load(tmp_path):
    dest = _allowlist_task(tmp_path)
    toml = dest / "task.toml"
    toml.write_text(toml.read_text() + '\n[lancebench]\nallow_hosts = ["10.0.0.1/8"]\n')
    with pytest.raises((TaskError, TaskErrors), match="allow_hosts"):
        load_task(dest)


def test_validate_warns_and_show_names_the_filter(tmp_path):
    dest = _allowlist_task(tmp_path)
    proc = lb("tasks", "validate", dest, env={"LB_JUDGE_BASE_URL": "http://x", "LB_JUDGE_API_KEY": "sk-test-1234"})
    assert proc.returncode == 0 and "unsupported" not in proc.stdout, proc.stdout
    assert "key 'verifier.network_mode' needs a network filter" in proc.stdout
    shown = json.loads(lb("tasks", "show", dest, "--json", check=True).stdout)
    assert shown["network"]["verifier"]["allowed_hosts"] == ["10.1.2.3"]
    assert shown["network"]["filter"] == "verifier.network_mode"


def test_validate_names_the_root_requirement_of_a_task_without_a_local_recipe(tmp_path):
    # before: a Harbor-only task (no [lancebench.local]) got only "runs only with --backend docker",
    # and the user running docker without root learned at plan time that it also needs root
    dest = _allowlist_task(tmp_path)
    toml = dest / "task.toml"
    text = toml.read_text()
    start = text.index("[lancebench.local]")
    end = text.find("\n[", start + 1)
    toml.write_text(text[:start] + (text[end + 1:] if end != -1 else ""))
    proc = lb("tasks", "validate", dest, env={"LB_JUDGE_BASE_URL": "http://x", "LB_JUDGE_API_KEY": "sk-test-1234"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "key 'verifier.network_mode' needs a network filter; the task runs only with --backend docker, " \
           "as root on the engine's machine" in " ".join(proc.stdout.split())


def test_show_gives_each_steps_network():
    shown = json.loads(lb("tasks", "show", FIXTURES / "every-field", "--json",
                          env={"LB_FIXTURE_TOKEN": "x"}, check=True).stdout)
    steps = shown["network"]["steps"]
    assert steps["one"]["agent"] == {"mode": "no-network", "allowed_hosts": [], "from": "steps.one.agent.network_mode"}


def test_check_on_local_stops_at_plan_time_with_one_line(tmp_path):
    jobs = tmp_path / "jobs"
    proc = lb("check", "-p", _allowlist_task(tmp_path), "-k", "1", "-o", jobs,
              env={"LB_JUDGE_BASE_URL": "http://x", "LB_JUDGE_API_KEY": "sk-test-1234"})
    text = proc.stdout + proc.stderr
    assert "verifier.network_mode" in text and "--backend docker" in text and "Traceback" not in text, text
    assert not list(jobs.rglob("result.json"))


def test_a_policy_read_as_a_bool_is_never_wider_than_declared():
    from lancebench.sandbox.backend import network_fields
    from lancebench.task.settings import NetworkPolicy
    assert [NetworkPolicy(m, h).public for m, h in (("public", ()), ("no-network", ()), ("allowlist", ("1.2.3.4",)))] \
        == [True, False, False]
    for mode in ("public", "no-network", "allowlist"):  # a plug-in backend written for `network: bool` fails
        with pytest.raises(TypeError, match="no truth value"):
            bool(NetworkPolicy(mode))
    assert network_fields(NetworkPolicy("allowlist", ("1.2.3.4",))) == {"network": True, "allow_hosts": ("1.2.3.4",)}
    assert network_fields(NetworkPolicy("allowlist")) == {"network": True, "allow_hosts": ()}
    assert network_fields(NetworkPolicy("public")) == {"network": True, "allow_hosts": None}
    assert network_fields(NetworkPolicy("no-network")) == {"network": False, "allow_hosts": None}


def test_validate_and_show_name_each_phases_network_and_harbors_verifier_default():
    """Issue 22: a Terminal-Bench-style task's verifier gets Harbor's network; `tasks validate`
    says so (and what it opens), `tasks show` names where each phase's network comes from."""
    task = FIXTURES / "tb-install-runner"
    proc = lb("tasks", "validate", task, check=True)
    text = " ".join(proc.stdout.split())
    assert ("network: agent no-network (lancebench default); verifier public "
            "(Harbor's default: the task declares no network)") in text
    assert "the code under test can reach the network while it is graded" in text
    shown = json.loads(lb("tasks", "show", task, "--json", check=True).stdout)["network"]
    assert shown["agent"] == {"mode": "no-network", "allowed_hosts": [], "from": "lancebench default"}
    assert shown["verifier"] == {"mode": "public", "allowed_hosts": [],
                                 "from": "Harbor's default: the task declares no network"}
    text = " ".join(lb("tasks", "validate", FIXTURES / "verifier-llm", check=True).stdout.split())
    assert "network: agent no-network (lancebench default); verifier public (verifier.network_mode)" in text
    assert "can reach the network while it is graded" not in text


def test_tasks_show_says_how_the_local_backend_networks_a_public_phase():
    # issue 20: a public phase on the local backend gets a namespace of its own with outbound
    # access only (slirp4netns); tasks show lists such phases, per phase, and says so
    harbor_default = FIXTURES / "tb-install-runner"  # declares no network: Harbor's public verifier
    closed = TASKS / "calc"
    shown = json.loads(lb("tasks", "show", harbor_default, "--json", check=True).stdout)["local"]
    assert shown["public_phases"] == ["verifier"] and shown["slirp4netns_installed"] is True
    assert "outbound access only" in shown["network_note"] and "127.0.0.1" in shown["network_note"]
    assert json.loads(lb("tasks", "show", closed, "--json", check=True).stdout)["local"] == {"public_phases": []}


def test_a_local_run_without_slirp4netns_refuses_a_public_phase(tmp_path):
    # never the host's own network instead: the run stops before any trial, naming the package
    fake_path = tmp_path / "bin"
    fake_path.mkdir()
    for tool in ("bwrap", "git", "bash", "python3"):  # what a run checks for before the network
        if found := shutil.which(tool):
            (fake_path / tool).symlink_to(found)
    env = {"PATH": str(fake_path)}
    closed = TASKS / "calc"
    public = derive_task(closed, tmp_path / "calc-public", toml={r"^\[agent\]$": '[agent]\nnetwork_mode = "public"'})
    r = lb("run", "-p", public, "-a", "oracle", "-o", tmp_path / "jobs", "--backend", "local", "--dry-run", env=env)
    text = " ".join((r.stdout + r.stderr).split())
    assert r.returncode != 0 and "apt-get install slirp4netns" in text and "agent public" in text, text
    r = lb("run", "-p", closed, "-a", "oracle", "-o", tmp_path / "jobs2", "--backend", "local", "--dry-run", env=env)
    assert r.returncode == 0 and "slirp4netns" not in r.stdout + r.stderr, r.stdout + r.stderr


def test_verifier_network_none_closes_harbors_default_only():
    """Issue 22: `--verifier-network none` gives no network to the verifier of a Harbor task that
    declares none (`tasks show` says so and why); a network a task declares stays, and the agent's
    is untouched. A value other than harbor or none is refused naming the flag."""
    shown = json.loads(lb("tasks", "show", FIXTURES / "tb-install-runner", "--json", "--verifier-network", "none",
                          check=True).stdout)["network"]
    assert shown["verifier"] == {"mode": "no-network", "allowed_hosts": [],
                                 "from": "--verifier-network none: the task declares no network"}
    assert shown["agent"] == {"mode": "no-network", "allowed_hosts": [], "from": "lancebench default"}
    declared = json.loads(lb("tasks", "show", FIXTURES / "verifier-llm", "--json", "--verifier-network", "none",
                             check=True).stdout)["network"]
    assert declared["verifier"] == {"mode": "public", "allowed_hosts": [], "from": "verifier.network_mode"}
    bad = lb("tasks", "show", FIXTURES / "tb-install-runner", "--verifier-network", "off", check=False)
    assert "--verifier-network off: expected harbor" in bad.stdout + bad.stderr


def test_a_runs_verifier_network_is_part_of_the_job_config(tmp_path):
    """The switch is recorded in job.json's configuration; the same job run without it is refused
    (another configuration), as for any setting that changes grading."""
    calc = Path(__file__).resolve().parents[1] / "fixtures" / "tasks" / "calc"
    jobs = tmp_path / "jobs"
    lb("run", "-p", calc, "-a", "nop", "--verifier-network", "none", "-o", jobs, "--job-name", "j", check=True)
    config = json.loads((jobs / "j" / "job.json").read_text())["config"]
    assert config["verifier_network"] == "none"
    again = lb("run", "-p", calc, "-a", "nop", "-o", jobs, "--job-name", "j", check=False)
    assert "verifier_network: none -> harbor" in " ".join((again.stdout + again.stderr).split())
