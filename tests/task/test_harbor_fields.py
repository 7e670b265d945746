"""Every field of Harbor's task model: acted on, or named by `tasks validate` as unsupported
(lancebench.task.harbor, .settings, .support). The differential test loads the same fixtures with
Harbor 0.25's own task model when a Python >= 3.12 with harbor is present."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from harbor_support import harbor_python

from lancebench.errors import TaskError, TaskErrors
from lancebench.task import load_task
from lancebench.task.harbor import parse_size_mb
from lancebench.task.settings import (
    HARBOR_VERIFIER_DEFAULT,
    fill_env,
    missing_host_vars,
    network_policy,
    phase_env,
    secret_values,
)
from lancebench.task.support import HARBOR_FIELDS, task_unsupported

HARBOR = Path(__file__).parent.parent / "fixtures" / "harbor"
EVERY = HARBOR / "every-field"
CALC = Path(__file__).parent.parent / "fixtures" / "tasks" / "calc"


def _harbor_task(tmp_path, environment: str, rest: str = "") -> Path:
    """calc with a pure-Harbor task.toml: the given [environment] body plus ``rest``."""
    dest = tmp_path / "t"
    shutil.copytree(CALC, dest)
    (dest / "task.toml").write_text(f'version = "1.0"\n{rest}\n[environment]\n{environment}\n')
    return dest


@pytest.mark.parametrize("text,mb", [("8G", 8 * 1024), ("20g", 20 * 1024), ("512M", 512), ("1.5G", 1536),
                                     (" 2048K ", 2), ("1000K", 0)])
def test_size_strings_convert_as_harbor_does(text, mb):
    # Harbor 0.25 EnvironmentConfig._parse_size_to_mb: G*1024, M as is, K/1024, truncated
    assert parse_size_mb(text) == mb


@pytest.mark.parametrize("text", ["8GB", "8", "", "G", "lotsG"])
def test_bad_size_strings_are_errors(text):
    with pytest.raises(ValueError, match="G, M or K"):
        parse_size_mb(text)


def test_legacy_memory_and_storage_reach_the_limits(tmp_path):
    task = load_task(_harbor_task(tmp_path, 'memory = "512M"\nstorage = "1G"'))
    assert (task.config.environment.memory_mb, task.config.environment.storage_mb) == (512, 1024)
    from lancebench.sandbox.backend import task_limits
    limits = task_limits(task)
    assert (limits.memory_mb, limits.storage_mb) == (512, 1024)


def test_conflicting_memory_and_memory_mb_name_the_file_and_both_keys(tmp_path):
    d = _harbor_task(tmp_path, 'memory = "1G"\nmemory_mb = 512')
    with pytest.raises(TaskErrors) as exc:
        load_task(d)
    (err,) = exc.value.errors
    assert err.path == d / "task.toml" and err.key == "environment.memory"
    assert "memory_mb" in str(err) and "1024 MB" in str(err)


def test_every_bad_size_and_host_of_the_table_is_named_at_its_own_key(tmp_path):
    # before: the first bad size hid the others (one error at key 'environment', prefixed
    # "Value error," and followed by the whole table); a fix-and-retry loop per mistake
    d = _harbor_task(tmp_path, 'memory = "8 GB"\nstorage = "20X"\ncpus = 1\nnetwork_mode = "allowlist"\n'
                               'allowed_hosts = ["http://pypi.org"]')
    with pytest.raises(TaskErrors) as exc:
        load_task(d)
    by_key = {e.key: str(e) for e in exc.value.errors}
    assert sorted(by_key) == ["environment.allowed_hosts", "environment.memory", "environment.storage"]
    assert "size '8 GB' must end in G, M or K" in by_key["environment.memory"]
    assert "size '20X' must end in G, M or K" in by_key["environment.storage"]
    assert "is a URL: write the host name alone ('pypi.org')" in by_key["environment.allowed_hosts"]
    assert not any("Value error" in m or "'cpus'" in m for m in by_key.values())


def test_a_good_size_string_is_not_dumped_and_keeps_the_environment_digest(tmp_path):
    a = load_task(_harbor_task(tmp_path / "a", 'memory = "1G"'))
    b = load_task(_harbor_task(tmp_path / "b", "memory_mb = 1024"))
    assert "memory" not in a.config.environment.model_dump() and a.config.environment.memory_mb == 1024
    assert a.config.environment.model_dump_json() == b.config.environment.model_dump_json()


def test_numeric_memory_is_an_error_with_the_fix(tmp_path):
    with pytest.raises(TaskErrors, match="size string like '8G'"):
        load_task(_harbor_task(tmp_path, "memory = 8"))


def test_env_templates_fill_from_the_host_as_harbor_does():
    host = {"SET": "v", "EMPTY": ""}
    got = fill_env({"a": "${SET}", "b": "${UNSET:-dflt}", "c": "${SET:-dflt}", "d": "literal ${SET}",
                    "e": "${EMPTY:-dflt}", "f": "plain"}, host)
    # only whole values are templates; a host variable set to "" is used as "" (no default)
    assert got == {"a": "v", "b": "dflt", "c": "v", "d": "literal ${SET}", "e": "", "f": "plain"}
    with pytest.raises(KeyError, match="NOPE"):
        fill_env({"x": "${NOPE}"}, host)


def test_each_phase_gets_its_tables_and_verifier_values_stay_in_the_verifier():
    task = load_task(EVERY)
    host = {"LB_FIXTURE_TOKEN": "s3cret"}
    assert phase_env(task, "agent", host=host) == {"GREETING": "hello"}
    assert phase_env(task, "solution", host=host) == {"GREETING": "hello", "SOLUTION_MODE": "fast"}
    assert phase_env(task, "verifier", host=host) == {"GREETING": "hello", "MODE": "strict", "TOKEN": "s3cret"}
    assert phase_env(task, "verifier", step="one", host=host)["STEP"] == "one"


def test_unfilled_template_is_a_plan_time_error_naming_table_and_variable(tmp_path):
    d = _harbor_task(tmp_path, "", rest='[verifier]\nenv = { KEY = "${LB_TEST_SURELY_UNSET}" }')
    task = load_task(d)
    (err,) = missing_host_vars(task, host={})
    assert isinstance(err, TaskError) and err.key == "verifier.env" and err.path == d / "task.toml"
    assert "LB_TEST_SURELY_UNSET" in str(err) and "export" in str(err)
    assert missing_host_vars(task, host={"LB_TEST_SURELY_UNSET": "x"}) == []


def test_only_host_filled_verifier_values_are_secrets():
    task = load_task(EVERY)
    assert secret_values(task, host={"LB_FIXTURE_TOKEN": "s3cret-token"}) == {"s3cret-token"}
    assert secret_values(task, host={}) == set()  # the default "none" is in task.toml: no secret
    assert secret_values(task, host={"LB_FIXTURE_TOKEN": "abc"}) == set()  # too short to mask


def test_network_policy_per_phase_follows_harbors_order(tmp_path):
    task = load_task(EVERY)
    assert network_policy(task, "agent").mode == "public"  # [agent] overrides the environment
    v = network_policy(task, "verifier")
    assert (v.mode, v.hosts, v.source) == ("allowlist", ("api.example.com",), "verifier.network_mode")
    assert network_policy(task, "agent", step="one").mode == "no-network"  # the step's own wins
    legacy = load_task(_harbor_task(tmp_path, "allow_internet = true"))
    assert network_policy(legacy, "verifier").mode == "public"
    shutil.rmtree(tmp_path / "t")
    assert network_policy(load_task(_harbor_task(tmp_path, "")), "agent").mode == "no-network"


def test_environment_workdir_is_the_workdir(tmp_path):
    assert load_task(_harbor_task(tmp_path, 'workdir = "/srv/repo"')).lb.workdir == "/srv/repo"


def test_validate_names_every_unsupported_field_and_only_those():
    reported = {line.split(" ")[0] for line in task_unsupported(load_task(EVERY))}
    assert reported == {
        "artifacts", "steps[].agent.user",
        "steps[].verifier.user", "verifier.user", "verifier.collect", "agent.user", "environment.gpus",
        "environment.gpu_types",
        "environment.skills_dir", "environment.mcp_servers"}


def test_only_artifacts_and_hooks_of_other_compose_services_are_unsupported():
    lines = task_unsupported(load_task(EVERY))
    (artifacts,) = [x for x in lines if x.startswith("artifacts ")]
    assert "compose services ['db']" in artifacts and "/app/out.txt" in artifacts
    (hooks,) = [x for x in lines if x.startswith("verifier.collect ")]
    assert "compose services ['db']" in hooks and "are not run" in hooks


def test_unknown_harbor_key_is_an_error_naming_the_closest_key(tmp_path):
    # before: a typo passed `tasks validate` with exit 0 and its default applied in silence (issue 28)
    d = _harbor_task(tmp_path, "memroy_mb = 4")
    with pytest.raises(TaskErrors) as exc:
        load_task(d)
    (err,) = exc.value.errors
    assert (err.key, err.problem) == ("environment.memroy_mb", "unknown key (not in Harbor's task model)")
    assert err.fix is not None and err.fix.startswith("did you mean 'memory_mb'? ") and "--lenient" in err.fix
    expected = ["environment.memroy_mb: unknown key (not in Harbor's task model) (did you mean 'memory_mb'?); "
                "ignored"]
    assert task_unsupported(load_task(d, lenient=True)) == expected


def test_tasks_validate_refuses_a_harbor_typo_unless_lenient(tmp_path):
    from typer.testing import CliRunner

    from lancebench.cli import app
    d = tmp_path / "typo"
    shutil.copytree(HARBOR / "env-sizes", d)
    toml = d / "task.toml"
    toml.write_text(toml.read_text().replace("[agent]\n", "[agent]\ntimeout_secs = 5\n", 1))
    assert "timeout_secs" in toml.read_text()
    strict = CliRunner().invoke(app, ["tasks", "validate", str(d)])
    assert strict.exit_code == 1 and "did you mean 'timeout_sec'?" in strict.output, strict.output
    lenient = CliRunner().invoke(app, ["tasks", "validate", "--lenient", str(d)])
    assert lenient.exit_code == 0, lenient.output
    assert "agent.timeout_secs: unknown key" in " ".join(lenient.output.split()), lenient.output


def test_tasks_show_json_prints_effective_settings(monkeypatch):
    from typer.testing import CliRunner

    from lancebench.cli import app
    monkeypatch.setenv("LB_FIXTURE_TOKEN", "never-printed")
    proc = CliRunner().invoke(app, ["tasks", "show", str(EVERY), "--json"])
    assert proc.exit_code == 0, proc.output
    shown = json.loads(proc.stdout)
    assert shown["limits"]["memory_mb"] == 1024 and shown["limits"]["storage_mb"] == 2048
    assert shown["network"]["verifier"] == {"mode": "allowlist", "allowed_hosts": ["api.example.com"],
                                            "from": "verifier.network_mode"}
    assert shown["steps"] == ["one", "two"] and shown["multi_step_reward_strategy"] == "final"
    assert "never-printed" not in proc.stdout
    assert shown["env"]["verifier"]["TOKEN"] == "${LB_FIXTURE_TOKEN:-none} (set on this machine)"
    assert shown["users"] == {"agent": "agent", "verifier": "root", "steps.one": {"agent": "agent", "verifier": "root"},
                              "steps.two": {"agent": "agent", "verifier": "root"}}
    one = shown["artifacts"]["steps.one"]
    # Harbor's publish folder first, the task's entries, then the step's; hooks of the task then the step
    assert [(e["source"], e["to"]) for e in one["collect"]] == [
        ("/logs/artifacts", "artifacts/logs/artifacts"), ("/app/out.txt", "artifacts/app/out.txt"),
        ("/app/reports", "artifacts/reports"), ("/var/lib/db/dump.sql", "artifacts/var/lib/db/dump.sql"),
        ("/app/one.txt", "artifacts/app/one.txt")]
    assert one["hooks"] == ["true", "pg_dump app > /var/lib/db/dump.sql"]
    assert [e["source"] for e in shown["artifacts"]["steps.two"]["collect"]][-1] == "/var/lib/db/dump.sql"


@pytest.mark.skipif(harbor_python() is None, reason="no Python >= 3.12 with harbor 0.25 "
                    "(scripts/setup.sh tests makes .venv-harbor; or set LANCEBENCH_HARBOR_PYTHON)")
def test_harbor_reads_the_same_settings(tmp_path):
    probe = ("import json,sys; from harbor.models.task.task import Task; c=Task(sys.argv[1]).config; "
             "e=c.environment; print(json.dumps([e.memory_mb, e.storage_mb, e.cpus, e.workdir, c.agent.timeout_sec, "
             "c.verifier.timeout_sec, c.verifier.network_mode.value, list(c.verifier.allowed_hosts), "
             "[s.name for s in c.steps], c.multi_step_reward_strategy.value]))")
    proc = subprocess.run([harbor_python(), "-c", probe, str(EVERY)], capture_output=True, text=True, check=True)
    task = load_task(EVERY)
    e, v = task.config.environment, network_policy(task, "verifier")
    ours = [e.memory_mb, e.storage_mb, e.cpus, task.lb.workdir, task.config.agent.timeout_sec,
            task.config.verifier.timeout_sec, v.mode, list(v.hosts), [s.name for s in task.config.steps],
            task.config.multi_step_reward_strategy]
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == ours


def test_every_harbor_field_is_classified():
    # the 0.25 model's top-level tables and a sample of nested fields, written out here by hand
    for name in ("schema_version", "task", "metadata", "verifier", "agent", "environment", "solution", "source",
                 "multi_step_reward_strategy", "steps", "artifacts", "environment.healthcheck", "environment.tpu",
                 "verifier.environment_mode", "steps[].min_reward"):
        assert name in HARBOR_FIELDS


def test_harbor_task_protects_what_its_verifier_reads(tmp_path):
    d = _harbor_task(tmp_path, 'workdir = "/app"')
    (d / "tests" / "test.sh").write_text("cp /tests/test_calc.py /app/tests/test_hidden.py\n"
                                        "cd /app && pytest tests/test_hidden.py && grep -q ok /app/src/mod.py\n")
    task = load_task(d)
    from lancebench.grading.patch import filter_patch
    globs = task.protected_globs()
    assert "tests/test_hidden.py" in globs and "**/conftest.py" in globs
    patch = "".join(f"diff --git a/{p} b/{p}\n--- a/{p}\n+++ b/{p}\n@@ -1 +1 @@\n-a\n+b\n"
                    for p in ("pyproject.toml", "src/mod.py", "tests/test_hidden.py", "tests/conftest.py"))
    kept, dropped = filter_patch(patch, globs, task.lb.unprotect)
    # the build file and the source stay (a Senior SWE-Bench fix may change pyproject.toml);
    # the verifier's destination and the start-up hook go; a file it only reads (regression:
    # env-sizes' /app/word.txt was dropped) stays
    assert sorted(dropped) == ["tests/conftest.py", "tests/test_hidden.py"]
    assert "pyproject.toml" in kept and "src/mod.py" in kept


def test_lancebench_tasks_keep_the_default_protected_paths():
    from lancebench.task.model import DEFAULT_PROTECTED
    task = load_task(CALC)
    assert task.protected_globs()[: len(DEFAULT_PROTECTED)] == list(DEFAULT_PROTECTED)


def test_a_task_the_backend_cannot_run_is_named_at_plan_time(tmp_path):
    from lancebench.backends.registry import cannot_run
    assert cannot_run(load_task(CALC), "local") is None and cannot_run(load_task(CALC), "docker") is None
    windows = cannot_run(load_task(_harbor_task(tmp_path, 'os = "windows"')), "docker")
    assert windows.key == "environment.os" and "Linux environments only" in str(windows)
    shutil.rmtree(tmp_path / "t")
    gpu = cannot_run(load_task(_harbor_task(tmp_path, "gpus = 1")), "docker")
    assert gpu.key == "environment.gpus"
    shutil.rmtree(tmp_path / "t")
    d = _harbor_task(tmp_path, "")
    (d / "environment" / "Dockerfile").unlink()
    assert "no environment/Dockerfile" in str(cannot_run(load_task(d), "docker"))


def test_a_harbor_task_declaring_no_network_gets_harbors_verifier_network(tmp_path):
    """Issue 22: Harbor's environment defaults to ``public`` and its verifier inherits it; a
    Terminal-Bench-style test.sh that installs its runner needs it. The agent keeps lancebench's
    default (none), and a task with a ``[lancebench]`` table keeps none for its verifier too."""
    task = load_task(_harbor_task(tmp_path, ""))
    v = network_policy(task, "verifier")
    assert (v.mode, v.source) == ("public", HARBOR_VERIFIER_DEFAULT)
    assert network_policy(task, "agent").mode == "no-network"
    for closed in ('[verifier]\nnetwork_mode = "no-network"', ""):
        shutil.rmtree(tmp_path / "t")
        env = "allow_internet = false" if not closed else ""
        v = network_policy(load_task(_harbor_task(tmp_path, env, closed)), "verifier")
        assert v.mode == "no-network" and v.source != HARBOR_VERIFIER_DEFAULT
    shutil.rmtree(tmp_path / "t")
    ours = _harbor_task(tmp_path, "", '[lancebench]\nprice_usd = 1')
    assert network_policy(load_task(ours), "verifier").mode == "no-network"


def test_model_names_and_settings_filled_from_the_host_are_not_masked_keys_are(tmp_path):
    """Regression (issue 21): the judge and validation model names read ``***`` in the kept logs."""
    env = ('{ JUDGE_MODEL = "${LB_T_JUDGE_MODEL}", API_BASE = "${LB_T_BASE}", OPENAI_API_KEY = "${LB_T_KEY}", '
           'AUTH = "${LB_T_AUTH}", PLAIN = "${LB_T_PLAIN}" }')
    task = load_task(_harbor_task(tmp_path, "", rest=f"[verifier]\nenv = {env}"))
    host = {"LB_T_JUDGE_MODEL": "anthropic/claude-sonnet-4-6", "LB_T_BASE": "http://127.0.0.1:8000/v1",
            "LB_T_KEY": "abcd1234efgh", "LB_T_AUTH": "bearer-value", "LB_T_PLAIN": "sk-proj-0123456789abcdef"}
    # the key and the auth value by their names, an OpenAI-shaped key by its prefix whatever its name
    assert secret_values(task, host=host) == {"abcd1234efgh", "bearer-value", "sk-proj-0123456789abcdef"}


def test_the_releases_oracle_scope_and_origin_are_kept_with_the_taxonomy(tmp_path):
    rest = ('[metadata]\noracle_scope = "partial"\norigin = "upstream-pr"\nnarrative = "the canonical fix is ..."\n'
            '[metadata.taxonomy]\ntask_type = "design"\n')
    task = load_task(_harbor_task(tmp_path, "", rest=rest))
    assert task.taxonomy == {"task_type": "design", "oracle_scope": "partial", "origin": "upstream-pr"}
