"""The SWE-Lancer IC flow on official per-task images (``lancebench.datasets.swelancer.ic``).

The real images (15-25 GB each) cannot be pulled here, so a fake one is built from
``tests/fixtures/swelancer_ic`` with their layout: ``/app/expensify`` a git checkout (history, the
fix at ``commit_id.txt``, ``bug_reintroduce.patch`` applied with a ``.orig`` leftover) and
``/app/tests`` (``run.sh``, ``replay.py``, ``rewrite_test.py``, ``issues/<id>/...``), with stand-ins
for ``npm run web`` and ``mitmdump``. Its ``test.py`` is plain pytest over HTTP, no browser; it
also checks each step of the official run that ``tests/test.sh`` must perform. The images are
named through ``LANCEBENCH_SWELANCER_IMAGES`` under a test-only prefix.

Needs a Docker engine and ``debian:bookworm-slim`` (``.ci/docker-setup.sh``); the tests that need
them skip and say so without. Expected values come from the fixture's files, the real table (read
with ``csv``) and the fake image itself (``docker run``), never from the module under test.
"""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import tomli_w
from docker_support import docker_skip_reason

from lancebench.datasets.swelancer.table import COLUMNS, read_table
from lancebench.errors import DatasetError
from lancebench.task.load import load_task

docker_mod = pytest.importorskip("docker", reason="the Docker SDK is missing: pip install 'lancebench[docker]'")

from lancebench.sandbox.docker_engine import client  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "tests" / "fixtures" / "swelancer_ic"
PREFIX = "lancebench-test/swelancer_x86_"
ISSUE = "990001_7"  # not a question id of the real table (checked below)
IMAGE = f"{PREFIX}{ISSUE}:releasev1"
BASE = "debian:bookworm-slim"


_REASON = docker_skip_reason(BASE)
needs_docker = [pytest.mark.docker, pytest.mark.skipif(_REASON is not None, reason=_REASON or "")]


def docker_test(fn):
    for mark in needs_docker:
        fn = mark(fn)
    return fn


def lancebench(*args: str, env: dict[str, str], timeout: float = 900) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from lancebench.cli import main; main()", *args],
                          capture_output=True, text=True, timeout=timeout, cwd=REPO,
                          env={**os.environ, **env, "COLUMNS": "300", "NO_COLOR": "1"})


@pytest.fixture(scope="module")
def fake_image() -> str:
    """The fake official image (tag ``IMAGE``); returns its id. Layers are cached by the engine."""
    image, _ = client().images.build(path=str(FIXTURE), tag=IMAGE, rm=True, forcerm=True, pull=False)
    yield image.id
    for img in client().images.list(filters={"label": f"lancebench.task={ISSUE}"}):  # task environments built
        try:
            client().api.remove_image(img.id, force=True, noprune=True)
        except docker_mod.errors.APIError:
            pass


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("LANCEBENCH_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("LANCEBENCH_SWELANCER_IMAGES", PREFIX)
    return tmp_path / "home"


@pytest.fixture
def ic_raw(raw_rows) -> dict[str, str]:
    """The first IC row of the real table with its question id replaced by the fake image's."""
    assert ISSUE not in {r["question_id"] for r in raw_rows}
    row = next(r for r in raw_rows if r["variant"] == "ic_swe")
    return {**row, "question_id": ISSUE}


def write_csv(path: Path, raw: dict[str, str], *qids: str) -> Path:
    """A table of ``raw`` (a real IC row) once per question id in ``qids``."""
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(COLUMNS))
        w.writeheader()
        for qid in qids:
            w.writerow({c: {**raw, "question_id": qid}.get(c, "") for c in COLUMNS})
    return path


@pytest.fixture
def ic_csv(tmp_path, ic_raw) -> Path:
    return write_csv(tmp_path / "ic.csv", ic_raw, ISSUE)


def in_image(image: str, script: str) -> str:
    return client().containers.run(image, ["-c", script], entrypoint="bash", remove=True, network_mode="none").decode()


def usd(price: float) -> str:
    return f"${price:,.0f}"


# pure ------------------------------------------------------------------------------------------
def test_image_names_follow_the_official_scheme_or_the_variable(monkeypatch):
    from lancebench.datasets.swelancer.ic import image_name
    monkeypatch.delenv("LANCEBENCH_SWELANCER_IMAGES", raising=False)
    assert image_name("16912_4") == "swelancer/swelancer_x86_16912_4:releasev1"
    assert image_name("15193-2") == "swelancer/swelancer_x86_15193:releasev1"  # the id before the first '-'
    monkeypatch.setenv("LANCEBENCH_SWELANCER_IMAGES", "mirror.example:5000/sl/swelancer_x86_")
    assert image_name("16912_4") == "mirror.example:5000/sl/swelancer_x86_16912_4:releasev1"
    monkeypatch.setenv("LANCEBENCH_SWELANCER_IMAGES", "mirror.example/sl:{id}-v2")
    assert image_name("16912_4") == "mirror.example/sl:16912_4-v2"


def test_no_engine_is_a_dataset_error_that_says_so(tmp_path, ic_csv):
    code = ("import sys; from pathlib import Path\n"
            "from lancebench.datasets.swelancer.table import read_table\n"
            "from lancebench.datasets.swelancer.ic import ic_task_folders, missing_images\n"
            "from lancebench.errors import DatasetError\n"
            f"rows = read_table(Path({str(ic_csv)!r}))\n"
            "print('missing:', missing_images(rows))\n"
            "try:\n"
            f"    ic_task_folders(rows, Path({str(tmp_path / 'root')!r}))\n"
            "except DatasetError as exc:\n"
            "    print(exc); sys.exit(7)\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "DOCKER_HOST": f"unix://{tmp_path}/no-engine.sock",
                              "LANCEBENCH_HOME": str(tmp_path / "home")})
    assert res.returncode == 7, res.stdout + res.stderr
    assert res.stdout.startswith("missing: None\n")  # nothing can be said without an engine
    assert "no Docker engine answers" in res.stdout and "official per-task images" in res.stdout
    assert not (tmp_path / "root").exists()


# with an engine --------------------------------------------------------------------------------
@docker_test
def test_missing_images_name_the_images_and_the_pull_command(home, ic_raw, tmp_path):
    from lancebench.datasets.swelancer.ic import ic_task_folders
    one, two = "990008_1", "990009_2"
    for img in (f"{PREFIX}{one}:releasev1", f"{PREFIX}{two}:releasev1"):
        with pytest.raises(docker_mod.errors.ImageNotFound):
            client().images.get(img)
    rows = read_table(write_csv(tmp_path / "two.csv", ic_raw, one, two))
    root = tmp_path / "root"
    with pytest.raises(DatasetError) as err:
        ic_task_folders(rows[:1], root)
    msg = str(err.value)
    assert "1 of the 1 SWE-Lancer IC images" in msg and f"docker pull {PREFIX}{one}:releasev1" in msg
    with pytest.raises(DatasetError) as err:
        ic_task_folders(rows, root)
    msg = str(err.value)
    assert "2 of the 2" in msg and f"{PREFIX}{one}:releasev1, {PREFIX}{two}:releasev1" in msg
    listing = root / "missing-images.txt"
    assert f"xargs -n1 docker pull < {listing}" in msg
    assert listing.read_text().split() == [f"{PREFIX}{one}:releasev1", f"{PREFIX}{two}:releasev1"]
    assert "LANCEBENCH_SWELANCER_IMAGES" in msg
    assert not (root / one).exists() and not (root / two).exists()


@docker_test
def test_an_image_without_the_official_tests_is_refused(home, ic_raw, tmp_path):
    from lancebench.datasets.swelancer.ic import ic_task_folders
    qid = "990003_1"
    tag = f"{PREFIX}{qid}"
    client().images.get(BASE).tag(tag, "releasev1")
    try:
        with pytest.raises(DatasetError) as err:
            ic_task_folders(read_table(write_csv(tmp_path / "t.csv", ic_raw, qid)), tmp_path / "root")
        assert f"image {tag}:releasev1 has no /app/tests" in str(err.value)
        assert not (tmp_path / "root" / qid).exists()
    finally:
        client().api.remove_image(f"{tag}:releasev1", noprune=True)


@docker_test
def test_the_task_folder_holds_the_images_tests_and_validates(fake_image, home, ic_csv, ic_raw, tmp_path):
    from lancebench.datasets.swelancer.ic import ic_task_folders
    root = tmp_path / "root"
    rows = read_table(ic_csv)
    (folder,) = ic_task_folders(rows, root)
    assert folder == root / ISSUE

    # tests/: the image's /app/tests with only this issue, plus test.sh
    fixture_tests = {p.relative_to(FIXTURE / "tests").as_posix() for p in (FIXTURE / "tests").rglob("*") if p.is_file()}
    expected = {f for f in fixture_tests if not f.startswith("issues/990002_1/")} | {f"issues/{ISSUE}/commit_id.txt",
                                                                                      "test.sh"}
    got = {p.relative_to(folder / "tests").as_posix() for p in (folder / "tests").rglob("*") if p.is_file()}
    assert got == expected
    for rel in expected - {f"issues/{ISSUE}/commit_id.txt", "test.sh"}:
        assert (folder / "tests" / rel).read_bytes() == (FIXTURE / "tests" / rel).read_bytes(), rel
    head = in_image(IMAGE, "git -C /app/expensify rev-parse HEAD").strip()
    assert (folder / "tests" / "issues" / ISSUE / "commit_id.txt").read_text().strip() == head
    assert os.access(folder / "tests" / "run.sh", os.X_OK) and os.access(folder / "tests" / "test.sh", os.X_OK)

    # the gold patch, the environment, the instruction, task.toml
    patch = FIXTURE / "tests" / "issues" / ISSUE / "bug_reintroduce.patch"
    assert (folder / "solution" / "bug_reintroduce.patch").read_bytes() == patch.read_bytes()
    assert os.access(folder / "solution" / "solve.sh", os.X_OK)
    dockerfile = (folder / "environment" / "Dockerfile").read_text()
    assert f"\nFROM {IMAGE}\n" in dockerfile and fake_image in dockerfile
    assert sorted(p.name for p in (folder / "environment").iterdir()) == ["Dockerfile"]
    task = load_task(folder)
    price = float(ic_raw["price"])
    assert task.price_usd == price and task.kind == "code" and task.split == "public"
    assert task.lb.workdir == "/app/expensify" and task.lb.browser
    assert (task.lb.test_runs, task.lb.pass_if) == (3, "any")
    # SWE-Lancer's runtime installs pytest-asyncio and pytest-playwright (requirements.txt), loaded
    # by name because grading turns plugin auto-loading off
    assert task.lb.pytest_plugins == ["pytest_asyncio.plugin", "pytest_playwright.pytest_playwright",
                                      "pytest_base_url.plugin"]
    assert task.config.metadata["question_id"] == ISSUE and task.config.metadata["variant"] == "ic_swe"
    assert task.config.metadata["image"] == IMAGE
    title = ic_raw["title"].replace("\\n", "\n").strip()
    first_line = ic_raw["description"].replace("\\n", "\n").strip().splitlines()[0]
    assert title in task.instruction and first_line in task.instruction and usd(price) in task.instruction
    assert "/app/expensify" in task.instruction and "user-tool" in task.instruction

    res = lancebench("tasks", "validate", str(folder), env={})
    assert res.returncode == 0 and "1 valid, 0 problem(s)" in res.stdout, res.stdout + res.stderr

    # a second call reuses the folder and the copied tests
    before = {p: p.stat().st_mtime_ns for p in folder.rglob("*")}
    cached = list((home / "swelancer-ic" / "tests").iterdir())
    assert ic_task_folders(rows, root) == [folder]
    assert {p: p.stat().st_mtime_ns for p in folder.rglob("*")} == before
    assert list((home / "swelancer-ic" / "tests").iterdir()) == cached and len(cached) == 1


def run_cli(args: list[str], home: Path, jobs: Path, name: str) -> tuple[dict, Path]:
    res = lancebench("run", *args, "--backend", "docker", "-o", str(jobs), "--job-name", name,
                     env={"LANCEBENCH_HOME": str(home), "LANCEBENCH_SWELANCER_IMAGES": PREFIX})
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    (trial,) = list((jobs / name / "trials").iterdir())
    return json.loads((trial / "result.json").read_text()), trial


@docker_test
@pytest.mark.slow
def test_oracle_resolves_and_nop_does_not_through_the_cli(fake_image, home, ic_csv, ic_raw, tmp_path):
    good, trial = run_cli(["-d", "swelancer:ic", "--source", str(ic_csv), "-a", "oracle"], home, tmp_path / "jobs",
                          "oracle")
    assert good["task"] == ISSUE and good["status"] == "resolved", good["reason"]
    assert good["rewards"] == {"reward": 1.0, "runs_passed": 3.0, "runs": 3.0}
    assert good["price_usd"] == float(ic_raw["price"])
    # the graded patch is the bug patch reversed
    patch = (trial / "patch.diff").read_text()
    assert "-    return 'e.g. 12345';\n+    return 'Format: 12345';\n" in patch
    # each run went through the image's start-up and the recorded-traffic replay
    for i in range(3):
        logs = trial / "verifier" / f"run-{i}" / "logs"
        assert (logs / "reward.txt").read_text().strip() == "1"
        log = (logs / "pytest.log").read_text()
        assert "2 passed" in log and "skipped" not in log  # the async test ran (pytest-asyncio, named)
        assert "asyncio: mode=" in log  # pytest-asyncio was loaded (by name)

    bad, trial = run_cli(["-d", "swelancer:ic", "--source", str(ic_csv), "-a", "nop"], home, tmp_path / "jobs", "nop")
    assert bad["status"] == "unresolved"
    assert bad["rewards"] == {"reward": 0.0, "runs_passed": 0.0, "runs": 3.0}
    log = (trial / "verifier" / "run-0" / "logs" / "pytest.log").read_text()
    assert "1 failed, 1 passed" in log and "test_the_zip_code_hint_reads_format" in log


@docker_test
@pytest.mark.slow
def test_without_the_named_plugins_an_async_test_is_skipped_and_nop_passes(fake_image, home, ic_csv, tmp_path):
    """Control for the plugin list: the same task folder without ``pytest_plugins`` lets the
    async hidden test be skipped (auto-loading is off), so a run of the untouched product exits 0
    and the do-nothing agent is resolved. The list is what makes the real check run."""
    from lancebench.datasets.swelancer.ic import ic_task_folders
    (folder,) = ic_task_folders(read_table(ic_csv), tmp_path / "root")
    toml = folder / "task.toml"
    data = tomllib.loads(toml.read_text())
    assert data["lancebench"].pop("pytest_plugins")
    toml.write_text(tomli_w.dumps(data))
    res = lancebench("run", "-p", str(folder), "-a", "nop", "--backend", "docker", "-o", str(tmp_path / "jobs"),
                     "--job-name", "noplugins", env={"LANCEBENCH_HOME": str(home)})
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    (trial,) = list((tmp_path / "jobs" / "noplugins" / "trials").iterdir())
    result = json.loads((trial / "result.json").read_text())
    log = (trial / "verifier" / "run-0" / "logs" / "pytest.log").read_text()
    assert "test_the_zip_code_hint_reads_format" in log and "skipped" in log, log[-2000:]
    assert result["status"] == "resolved", result["reason"]


@docker_test
@pytest.mark.slow
def test_the_agent_sees_one_commit_and_no_tests_and_its_fix_resolves(fake_image, home, ic_csv, tmp_path):
    from lancebench.datasets.swelancer.ic import ic_task_folders
    (folder,) = ic_task_folders(read_table(ic_csv), tmp_path / "root")
    fix_commit = in_image(IMAGE, "git -C /app/expensify rev-parse HEAD").strip()
    assert in_image(IMAGE, f"git -C /app/expensify cat-file -t {fix_commit}").strip() == "commit"  # there upstream
    agent = tmp_path / "probe.sh"
    agent.write_text((FIXTURE / "probe_agent.sh").read_text().replace("@FIX_COMMIT@", fix_commit))
    result, trial = run_cli(["-p", str(folder), "-a", f"script:{agent}"], home, tmp_path / "jobs", "probe")
    seen = dict(line.split("=", 1) for line in (trial / "agent" / "script.log").read_text().splitlines()
                if "=" in line and not line.startswith("exit code"))
    assert seen["workdir"] == "/app/expensify"
    assert seen["commits"] == "1" and seen["dirty"] == "0" and seen["fix_commit"] == "absent"
    assert "exists" not in seen, seen  # no /app/tests, /app/tests.zip, /tests, /solution
    assert seen["orig_files"] == "0" and seen["hidden_test_copies"] == "0"
    assert seen["user_tool_exit"] == "0" and seen["fixed"] == "1"
    records = [json.loads(line) for line in (trial / "agent" / "user_tool.jsonl").read_text().splitlines()]
    assert [r["outcome"] for r in records] == ["ok"]
    assert result["status"] == "resolved", result["reason"]
    assert result["rewards"] == {"reward": 1.0, "runs_passed": 3.0, "runs": 3.0}


BROKEN = {
    # pytest exits 2 (a collection error): neither a pass nor a fail
    "990004_1": "RUN printf 'def test_broken(:\\n' > /app/tests/issues/990004_1/test.py\n",
    # the image's start-up ends without writing /setup_done.txt
    "990005_1": "RUN printf '#!/bin/bash\\necho no display >&2\\nexit 1\\n' > /app/tests/run.sh\n",
}


@docker_test
@pytest.mark.slow
@pytest.mark.parametrize("qid, why", [("990004_1", "pytest exit code: 2"),
                                      ("990005_1", "the image's start-up (run.sh) did not finish")])
def test_a_run_that_neither_passes_nor_fails_makes_the_trial_invalid(fake_image, home, ic_raw, tmp_path, qid, why):
    dockerfile = (f"FROM {IMAGE}\nRUN mv /app/tests/issues/{ISSUE} /app/tests/issues/{qid}\n{BROKEN[qid]}"
                  f"ENV ISSUE_ID={qid}\n")
    tag = f"{PREFIX}{qid}:releasev1"
    client().images.build(fileobj=io.BytesIO(dockerfile.encode()), tag=tag, rm=True, forcerm=True, pull=False)
    try:
        path = write_csv(tmp_path / "broken.csv", ic_raw, qid)
        result, trial = run_cli(["-d", "swelancer:ic", "--source", str(path), "-a", "nop"], home, tmp_path / "jobs",
                                qid)
        assert result["status"] == "invalid" and "grader failed" in result["reason"], result["reason"]
        for i in range(3):
            run = trial / "verifier" / f"run-{i}"
            assert not (run / "logs" / "reward.txt").exists()
            assert why in (run / "test.log").read_text()
    finally:
        for img in client().images.list(filters={"label": f"lancebench.task={qid}"}):
            client().api.remove_image(img.id, force=True, noprune=True)
        client().api.remove_image(tag, force=True, noprune=True)


@docker_test
def test_missing_images_are_counted_without_writing(fake_image, home, ic_raw, tmp_path):
    from lancebench.datasets.swelancer.ic import missing_images
    rows = read_table(write_csv(tmp_path / "two.csv", ic_raw, ISSUE, "990008_1"))
    assert missing_images(rows) == [f"{PREFIX}990008_1:releasev1"]
    assert missing_images(rows[:1]) == []
    assert not any(tmp_path.glob("**/missing-images.txt"))


@docker_test
def test_the_real_table_without_images_is_refused_with_every_pull(table_path, raw_rows, tmp_path, monkeypatch):
    from lancebench.datasets.registry import load_dataset
    monkeypatch.setenv("LANCEBENCH_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("LANCEBENCH_SWELANCER_IMAGES", raising=False)
    names = [f"swelancer/swelancer_x86_{r['question_id']}:releasev1" for r in raw_rows if r["variant"] == "ic_swe"]
    missing = []
    for name in names:
        try:
            client().images.get(name)
        except docker_mod.errors.ImageNotFound:
            missing.append(name)
    if not missing:
        pytest.skip("every official IC image is in this engine")
    with pytest.raises(DatasetError) as err:
        load_dataset("swelancer:ic", source=table_path)
    msg = str(err.value)
    assert f"{len(missing)} of the {len(names)} SWE-Lancer IC images are not in the local Docker engine" in msg
    assert missing[0] in msg and "docker pull" in msg
    if len(missing) > 1:  # the whole list, for xargs; no task folder written
        (listing,) = (tmp_path / "home").glob("datasets/swelancer/*/missing-images.txt")
        assert listing.read_text().split() == missing
        assert [p.name for p in listing.parent.iterdir()] == ["missing-images.txt"]


@docker_test
def test_task_globs_select_the_images_needed(table_path, raw_rows, tmp_path, monkeypatch):
    """`-t` reaches the adapter: a user who pulled one task's image runs that task without pulling
    the other 197 (here the image is absent too, so the error names exactly that one)."""
    from lancebench.datasets.registry import load_dataset
    monkeypatch.setenv("LANCEBENCH_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("LANCEBENCH_SWELANCER_IMAGES", raising=False)
    qid = next(r["question_id"] for r in raw_rows if r["variant"] == "ic_swe")
    name = f"swelancer/swelancer_x86_{qid.split('-')[0]}:releasev1"
    try:
        client().images.get(name)
        pytest.skip(f"{name} is in this engine")
    except docker_mod.errors.ImageNotFound:
        pass
    with pytest.raises(DatasetError) as err:
        load_dataset("swelancer:ic", source=table_path, names=[qid])
    assert "1 of the 1 SWE-Lancer IC images" in str(err.value) and f"docker pull {name}" in str(err.value)
