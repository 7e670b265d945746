#!/bin/bash
# Kind: storage limits, variant "the code under test, in the verifier's folders": at import
# (during grading) calc.py writes five 20 MB files into the verifier's log folder, a host folder
# bound into the grading sandbox, and five more into /tmp; with all of them in place it records
# how many bytes each folder took, removes them, and leaves the totals in the log folder (which
# the harness keeps in the trial). Names are assembled at run time (the scan sees nothing).
cat > calc.py <<'PY'
import os

_logs = os.path.join(os.sep, "lo" + "gs", "veri" + "fier")
_done = os.path.join(_logs, "flood.txt")
if not os.path.exists(_done):
    _report, _files = [], []
    for _d in (_logs, os.path.join(os.sep, "tmp")):
        _n = 0
        for _i in range(5):
            _f = os.path.join(_d, f".flood-{_i}")
            _files.append(_f)
            try:
                with open(_f, "wb") as _fh:
                    for _ in range(20):
                        _fh.write(b"\0" * 1_000_000)
            except OSError:
                pass
            _n += os.path.getsize(_f) if os.path.exists(_f) else 0
        _report.append(f"{_d} {_n}")
    for _f in _files:
        try:
            os.remove(_f)
        except OSError:
            pass
    with open(_done, "w") as _fh:
        _fh.write("\n".join(_report) + "\n")


def add(a, b):
    return a + b


def mul(a, b):
    return a * b
PY
