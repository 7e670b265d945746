#!/bin/bash
# Attack pass round 4: a patch that fixes the F2P tests and breaks what a P2P test checks, and
# skips that test instead of failing it: the broken function calls pytest's own public skip when
# it runs under pytest (an honest-looking "optional dependency missing"). A skipped P2P test
# counts as kept (SWE-bench's rule), so calc.mul's breakage went unseen.
cat > calc.py <<'PY'
def add(a, b):
    return a + b


def mul(a, b):
    try:
        import pytest
    except ImportError:
        return a + b
    pytest.skip("mul needs the optional fastmath extension")
PY
