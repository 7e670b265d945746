"""The SWE-Lancer IC flow on the official per-task images (``--backend docker``).

``ic_task_folders(rows, root)`` writes one Harbor-layout task folder per IC row under
``root/<question_id>/`` (atomically; a folder already there with the same content is reused), from
SWE-Lancer's image for that task, which must already be in the local Docker engine (see
:func:`image_name`; nothing is pulled):

- ``environment/Dockerfile``: ``FROM`` the official image (its product checkout at the issue's
  commit with ``bug_reintroduce.patch`` applied), then ``/app/tests`` and patch leftovers
  (``*.orig``) removed and ``/app/expensify`` turned into a fresh one-commit repository;
- ``tests/``: the image's ``/app/tests`` (copied out once per image id, only this issue's
  ``issues/<id>/``) plus ``tests/test.sh``, one grading run the way the official scripts run it;
- ``solution/solve.sh``: the gold patch, i.e. ``bug_reintroduce.patch`` reversed (``-a oracle``);
- ``instruction.md`` (lancebench's own wording) and ``task.toml`` (price, ``browser``, 3 runs, any
  passes, ``workdir = "/app/expensify"``, resources close to upstream's 2 CPUs and 12 GB).

``LANCEBENCH_SWELANCER_IMAGES`` names the images: a pattern with ``{id}`` (the question id), or a
prefix to which ``{id}:releasev1`` is appended. Default: ``swelancer/swelancer_x86_{id}:releasev1``.
"""

from __future__ import annotations

import os
from pathlib import Path

from lancebench.datasets.swelancer.ic_files import PATCH, SOLVE_SH, TEST_SH, dockerfile, instruction, task_toml
from lancebench.datasets.swelancer.ic_images import image_ids, lookup, official_tests
from lancebench.datasets.swelancer.table import IC, SwelancerRow
from lancebench.datasets.task_folder import Files, write_task
from lancebench.errors import DatasetError

IMAGES_ENV = "LANCEBENCH_SWELANCER_IMAGES"
DEFAULT_IMAGES = "swelancer/swelancer_x86_{id}:releasev1"

def image_name(question_id: str) -> str:
    """The official image of IC task ``question_id``: ``$LANCEBENCH_SWELANCER_IMAGES`` (a pattern
    with ``{id}``, or a prefix to which ``{id}:releasev1`` is appended) or the default
    ``swelancer/swelancer_x86_{id}:releasev1``; ``{id}`` is the question id up to its first ``-``."""
    pattern = os.environ.get(IMAGES_ENV, "").strip() or DEFAULT_IMAGES
    if "{id}" not in pattern:
        pattern += "{id}:releasev1"
    return pattern.replace("{id}", question_id.split("-")[0])


def task_files(row: SwelancerRow, image: str, image_id: str, tests: Path) -> Files:
    """The files of IC ``row``'s task folder (relative path -> (bytes, mode)); ``tests`` is the
    image's ``/app/tests`` on the host (:func:`official_tests`)."""
    issue = row.question_id
    fix = tests / "issues" / issue / PATCH
    if not fix.is_file():
        raise DatasetError(f"image {image} has no /app/tests/issues/{issue}/{PATCH}, so task {issue} has no reference "
                           "solution; is it SWE-Lancer's official image for that task?")
    files: Files = {}
    for p in sorted(tests.rglob("*")):
        if p.is_file() and not p.is_symlink():
            mode = 0o755 if p.stat().st_mode & 0o111 else 0o644
            files[f"tests/{p.relative_to(tests).as_posix()}"] = (p.read_bytes(), mode)
    text = {"task.toml": (task_toml(row, image, image_id), 0o644),
            "instruction.md": (instruction(row), 0o644),
            "environment/Dockerfile": (dockerfile(image, image_id), 0o644),
            "tests/test.sh": (TEST_SH.replace("@ISSUE@", issue), 0o755),
            "solution/solve.sh": (SOLVE_SH, 0o755)}
    files.update({rel: (body.encode("utf-8"), mode) for rel, (body, mode) in text.items()})
    files[f"solution/{PATCH}"] = (fix.read_bytes(), 0o644)
    return files


def ic_task_folders(rows: list[SwelancerRow], root: Path) -> list[Path]:
    """Write the task folders of the IC ``rows`` under ``root`` (see the module docstring) and return
    them, in the rows' order. Raises :class:`DatasetError` when a row is not an IC row, no Docker
    engine answers, images are missing (with the ``docker pull`` command), or an image is not an
    official SWE-Lancer image (no ``/app/tests/issues/<id>/``)."""
    wrong = [r.question_id for r in rows if r.variant != IC]
    if wrong:
        raise DatasetError(f"not IC tasks: {', '.join(wrong[:5])}; ic_task_folders takes rows with variant {IC!r}")
    names = {r.question_id: image_name(r.question_id) for r in rows}
    hint = (f"Images are named {os.environ.get(IMAGES_ENV, '').strip() or DEFAULT_IMAGES} "
            f"(set {IMAGES_ENV} for a mirror; see docs/swelancer-ic.md).")
    ids = image_ids(list(names.values()), root, hint) if rows else {}
    folders = []
    for r in rows:
        image = names[r.question_id]
        tests = official_tests(image, ids[image], r.question_id)
        folders.append(write_task(task_files(r, image, ids[image], tests), root / r.question_id))
    return folders


def missing_images(rows: list[SwelancerRow]) -> list[str] | None:
    """The official images of ``rows`` that are not in the local Docker engine (``[]``: every task
    can run), or None when no engine answers. Writes nothing; for counts such as ``lancebench
    datasets``."""
    try:
        return lookup([image_name(r.question_id) for r in rows])[1]
    except DatasetError:
        return None
