"""The Docker side of the SWE-Lancer IC flow: which official per-task images the local engine
holds, and the hidden tests (``/app/tests``) copied out of one image.

- :func:`image_ids` checks that every image is in the local engine (never pulls: each is 15-25 GB)
  and returns their ids; a missing image or a silent engine is a :class:`DatasetError` that says
  what to run. :func:`lookup` only tells which are there.
- :func:`official_tests` copies ``/app/tests`` out of an image (``docker create`` + an archive of
  the folder, no container is started) into ``$LANCEBENCH_HOME/swelancer-ic/tests/<image id>-<issue>/``,
  once per image id: a re-pulled image (a new id) is copied again. Of ``issues/`` only the task's
  own ``issues/<issue>/`` is kept.
"""

from __future__ import annotations

import os
import shutil
import tarfile
import tempfile
import uuid
from pathlib import Path

from lancebench.caches.cache import sub
from lancebench.errors import DatasetError, SandboxError
from lancebench.sandbox import docker_engine as engine

TESTS_INSIDE = "/app/tests"
SHOWN_MISSING = 3
MISSING_LIST = "missing-images.txt"


def _client():
    try:
        return engine._import_docker(), engine.client()
    except SandboxError as exc:
        raise DatasetError(f"SWE-Lancer IC tasks run in the official per-task images, which must be in a local Docker "
                           f"engine, but {exc}") from None


def lookup(names: list[str]) -> tuple[dict[str, str], list[str]]:
    """(``{name: image id}`` of the images in the local engine, names of the missing ones).
    Raises :class:`DatasetError` when no engine answers or one cannot inspect an image."""
    docker, cli = _client()
    ids: dict[str, str] = {}
    missing: list[str] = []
    for name in dict.fromkeys(names):
        try:
            ids[name] = cli.api.inspect_image(name)["Id"]
        except docker.errors.ImageNotFound:
            missing.append(name)
        except docker.errors.APIError as exc:
            raise DatasetError(f"docker could not inspect image {name}: {exc}") from None
    return ids, missing


def image_ids(names: list[str], root: Path, hint: str) -> dict[str, str]:
    """``{name: image id}`` for every image in ``names``. Raises :class:`DatasetError` when no engine
    answers, or when some are missing: how many, the first few, and the ``docker pull`` command
    (the whole list goes to ``root/missing-images.txt`` for ``xargs``). ``hint`` is added to the
    message (how to point lancebench at other image names)."""
    ids, missing = lookup(names)
    if not missing:
        return ids
    shown = ", ".join(missing[:SHOWN_MISSING]) + (", ..." if len(missing) > SHOWN_MISSING else "")
    fix = f"docker pull {missing[0]}"
    if len(missing) > 1:
        root.mkdir(parents=True, exist_ok=True)
        listing = root / MISSING_LIST
        listing.write_text("".join(f"{m}\n" for m in missing), encoding="utf-8")
        fix = f"xargs -n1 docker pull < {listing}   (that file lists all {len(missing)})"
    raise DatasetError(f"{len(missing)} of the {len(ids) + len(missing)} SWE-Lancer IC images are not in the local "
                       f"Docker engine: {shown}. lancebench does not pull them (15-25 GB each); pull them first: "
                       f"{fix}. To run only the tasks whose images you have, select them with -t ID "
                       f"(repeatable, globs allowed). {hint}")


def official_tests(image: str, image_id: str, issue: str) -> Path:
    """The image's ``/app/tests`` (with only ``issues/<issue>/`` of its issues) as a folder on the
    host, copied once per image id. Raises :class:`DatasetError` when the image has no
    ``/app/tests/issues/<issue>/test.py`` or the copy fails."""
    dest = sub("swelancer-ic") / "tests" / f"{image_id.split(':')[-1][:24]}-{issue}"
    if dest.is_dir():
        return dest
    docker, cli = _client()
    tag = uuid.uuid4().hex[:8]
    tmp = dest.parent / f".{dest.name}.{tag}.tmp"
    cid = None
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        labels = engine.managed_labels(**{"lancebench.phase": "swelancer-ic-tests"})
        cid = cli.api.create_container(image_id, command=["true"], labels=labels)["Id"]
        with tempfile.TemporaryFile(dir=dest.parent) as buf:
            chunks, _ = cli.api.get_archive(cid, TESTS_INSIDE)
            for chunk in chunks:
                buf.write(chunk)
            buf.seek(0)
            with tarfile.open(fileobj=buf) as tar:
                tar.extractall(tmp, members=_members(tar, issue), filter="data")
        if not (tmp / "tests" / "issues" / issue / "test.py").is_file():
            raise DatasetError(f"image {image} has no {TESTS_INSIDE}/issues/{issue}/test.py: it is not SWE-Lancer's "
                               f"official image for task {issue} (check LANCEBENCH_SWELANCER_IMAGES)")
        try:
            os.rename(tmp / "tests", dest)
        except OSError:
            if not dest.is_dir():  # another process copied the same tests first: keep theirs
                raise
    except docker.errors.NotFound:
        raise DatasetError(f"image {image} has no {TESTS_INSIDE}: it is not SWE-Lancer's official image for task "
                           f"{issue} (check LANCEBENCH_SWELANCER_IMAGES)") from None
    except (docker.errors.APIError, tarfile.TarError) as exc:
        raise DatasetError(f"could not copy {TESTS_INSIDE} out of image {image}: {exc}") from None
    except OSError as exc:
        raise DatasetError(f"could not store the tests of image {image} in {dest}: {exc.strerror or exc} "
                           f"(check that {dest.parent} is writable, or set LANCEBENCH_HOME)") from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        if cid is not None:
            try:
                cli.api.remove_container(cid, force=True, v=True)
            except docker.errors.APIError:
                pass
    return dest


def _members(tar: tarfile.TarFile, issue: str):
    """The archive's members under ``tests/``, without the other issues' folders."""
    for m in tar:
        parts = m.name.split("/")
        if parts[0] != "tests":
            continue
        if len(parts) >= 3 and parts[1] == "issues" and parts[2] != issue:
            continue
        yield m
