"""Pre-flight checks (lancebench.commands.preflight) on real inputs: real files and folders, a real
TCP listener and a closed port, the installed modules, the Docker engine when one answers."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from lancebench.commands.preflight import (
    check_input_file,
    check_model,
    check_modules,
    check_output_folder,
    check_reachable,
    positive_limit,
)
from lancebench.commands.settings import RunSettings
from lancebench.errors import ConfigError, MissingComponentError, ModelAccessError


def test_output_folder(tmp_path):
    check_output_folder(tmp_path / "new" / "jobs")  # created later: fine
    (tmp_path / "f").write_text("x")
    with pytest.raises(ConfigError, match="is a file"):
        check_output_folder(tmp_path / "f")
    with pytest.raises(ConfigError, match="cannot be made: .* is a file"):
        check_output_folder(tmp_path / "f" / "jobs")
    if os.getuid() != 0:  # root may write anywhere
        ro = tmp_path / "ro"
        ro.mkdir(mode=0o555)
        with pytest.raises(ConfigError, match="not writable"):
            check_output_folder(ro / "jobs")


@pytest.mark.parametrize("folder", ["/proc/lancebench-jobs", "/sys/lancebench-jobs", "/proc/self"])
def test_an_output_folder_is_tried_by_writing(folder):
    # before: os.access says yes to root for /proc and /sys, and the run ended in an internal error
    with pytest.raises(ConfigError, match="not writable"):
        check_output_folder(Path(folder))


def test_a_writable_output_folder_is_left_as_it_was(tmp_path):
    check_output_folder(tmp_path / "jobs")
    assert list(tmp_path.iterdir()) == []  # the probe file is gone


def test_input_file(tmp_path):
    with pytest.raises(ConfigError, match="--predictions .*: no such file"):
        check_input_file(tmp_path / "nope.jsonl", "--predictions")
    with pytest.raises(ConfigError, match="is not a file"):
        check_input_file(tmp_path, "-c")


@pytest.mark.parametrize("value,integer,expected", [("3", False, 3.0), (0.5, False, 0.5), ("unlimited", False, 0),
                                                    ("UNLIMITED", True, 0), ("7", True, 7), (None, False, None)])
def test_positive_limits(value, integer, expected):
    assert positive_limit("--x", value, integer=integer) == expected


@pytest.mark.parametrize("value", ["0", "-1", -0.5, "nan", "abc", "1.5e-400"])
def test_out_of_range_limits_are_errors(value):
    with pytest.raises(ConfigError, match="--x"):
        positive_limit("--x", value)


def test_settings_reject_an_unlimited_timeout_and_unknown_fields():
    with pytest.raises(ConfigError, match="--agent-timeout"):
        RunSettings.from_flags({"agent_timeout": "unlimited"})
    # before: -5 was told to write 'unlimited', which is refused
    for bad in ("-5", "0", "soon", "unlimited"):
        with pytest.raises(ConfigError) as exc:
            RunSettings.from_flags({"agent_timeout": bad})
        message = str(exc.value)
        assert "> 0" in message and "for no limit" not in message, message
        assert ", or 'unlimited'" not in message, message
    with pytest.raises(ConfigError, match="attempt: Extra inputs are not permitted"):
        RunSettings.from_flags({"attempt": 2})
    assert RunSettings.from_flags({"max_steps": "unlimited", "max_cost": "2.5"}).model_dump(
        include={"max_steps", "max_cost"}) == {"max_steps": 0, "max_cost": 2.5}


def test_a_missing_module_names_the_extra():
    check_modules({"json": "json"}, "llm", "-m x")
    with pytest.raises(MissingComponentError, match=r"-m x needs no-such-pkg.*pip install 'lancebench\[llm\]'"):
        check_modules({"no_such_module_lancebench": "no-such-pkg"}, "llm", "-m x")


def test_api_base_reachability():
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        check_reachable(f"http://127.0.0.1:{port}/v1")
    with pytest.raises(ModelAccessError, match=f"--api-base http://127.0.0.1:{port}/v1: nothing answers"):
        check_reachable(f"http://127.0.0.1:{port}/v1")
    with pytest.raises(ConfigError, match="write a URL"):
        check_reachable("127.0.0.1:8000")


def test_check_names_the_ids_the_report_holds_when_one_matches_nothing():
    """Regression (issue 13): an F2P id that matches nothing was only "missing", without the ids
    the report holds, so the author could not see how to spell it."""
    from lancebench.grading.junit import JUnitReport, id_key
    from lancebench.grading.outcome import judge_run
    from lancebench.taskcheck.check import missing_ids_problems
    report = JUnitReport(cases={id_key("tests/test_x.py::TestA::test_b"): "failed",
                                id_key("tests/test_x.py::test_c"): "passed"})
    run = judge_run(exit_code=1, timed_out=False, rewards=None, junit=report,
                    f2p=["test_x::TestA::test_b", "test_x::test_zz"], p2p=["tests/test_x.py::test_c"])
    assert missing_ids_problems(run) == [
        'base: listed test "test_x::test_zz" matches no test of the JUnit report; it holds: '
        '"tests.test_x.TestA::test_b", "tests.test_x::test_c"']


def test_a_mistyped_provider_is_named_with_the_closest_ones(monkeypatch):
    # before: "-m opneai/gpt-4o" was sent to litellm and came back as a 400 with litellm's
    # "LLM Provider NOT provided ... Huggingface ..." text
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with pytest.raises(ConfigError, match=r"-m opneai/gpt-4o: provider 'opneai' is not one litellm knows "
                                          r"\(did you mean openai"):
        check_model("opneai/gpt-4o", None)
    check_model("openai/gpt-4o", None)  # known provider, key set: passes
    check_model("gpt-4o", None)  # no prefix: litellm infers the provider
