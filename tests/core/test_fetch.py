"""lancebench.fetch: a wheel fetched by pip (a stand-in pip program writing a real zip), its
sha256 checked, one member unpacked atomically; nothing is left behind when a step fails."""

from __future__ import annotations

import hashlib
import io
import sys
import zipfile

import pytest

from lancebench.fetch import FetchError, fetch_wheel_member, read_member, write_atomic

MEMBER = "pkg/data.bin"
PAYLOAD = bytes(range(256)) * 4096  # 1 MiB


def _wheel_bytes(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buf.getvalue()


def _fake_pip(tmp_path, wheel: bytes):
    """An external program standing in for pip: writes ``wheel`` where ``-d`` points."""
    (tmp_path / "wheel.bin").write_bytes(wheel)
    script = tmp_path / "fake_pip.py"
    script.write_text("import sys, shutil, pathlib\nd = sys.argv[sys.argv.index('-d') + 1]\n"
                      f"shutil.copy({str(tmp_path / 'wheel.bin')!r}, pathlib.Path(d, 'pkg-1.0-py3-none-any.whl'))\n")
    return [sys.executable, str(script)]


def test_member_is_unpacked_after_the_hash_matches(tmp_path):
    wheel = _wheel_bytes({MEMBER: PAYLOAD, "pkg/__init__.py": b""})
    dest = tmp_path / "cache" / "data.bin"
    got = fetch_wheel_member("pkg==1.0", MEMBER, dest, wheel_sha256=hashlib.sha256(wheel).hexdigest(),
                             pip=_fake_pip(tmp_path, wheel))
    assert got == dest and dest.read_bytes() == PAYLOAD
    assert sorted(p.name for p in dest.parent.iterdir()) == ["data.bin"]  # no wheel, no temporary left


def test_a_wrong_hash_is_refused_and_nothing_is_unpacked(tmp_path):
    wheel = _wheel_bytes({MEMBER: PAYLOAD})
    dest = tmp_path / "cache" / "data.bin"
    with pytest.raises(FetchError, match="sha256 " + hashlib.sha256(wheel).hexdigest()):
        fetch_wheel_member("pkg==1.0", MEMBER, dest, wheel_sha256="0" * 64, pip=_fake_pip(tmp_path, wheel))
    assert list(dest.parent.iterdir()) == []


def test_a_missing_member_and_a_failing_pip_are_fetch_errors(tmp_path):
    wheel = _wheel_bytes({"other": b"x"})
    dest = tmp_path / "cache" / "data.bin"
    with pytest.raises(FetchError, match=MEMBER):
        fetch_wheel_member("pkg==1.0", MEMBER, dest, pip=_fake_pip(tmp_path, wheel))
    with pytest.raises(FetchError, match="nope"):
        fetch_wheel_member("pkg==1.0", MEMBER, dest, pip=[sys.executable, "-c", "import sys; sys.exit('nope')"])
    assert list(dest.parent.iterdir()) == []
    with pytest.raises(FetchError, match="does not hold"):
        read_member(b"not a zip", MEMBER)


def test_write_atomic_replaces_the_whole_file(tmp_path):
    dest = tmp_path / "t.csv"
    dest.write_bytes(b"old")
    assert write_atomic(dest, b"new contents") == dest
    assert dest.read_bytes() == b"new contents" and [p.name for p in tmp_path.iterdir()] == ["t.csv"]
