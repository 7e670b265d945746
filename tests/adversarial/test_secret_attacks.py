"""Attacks on the verifier's secrets: a task's ``[verifier].env`` fills ``API_KEY`` from the host
(``${LB_ATTACK_SECRET}``), and the code under test, which runs in the test runner's process while
the verifier grades it, reads it and puts it into a failing test's assertion message, so into the
JUnit report and ``tests/test.sh``'s output, which the job folder keeps.

Plain: every kept file has the key replaced by ``***`` (held at the attack pass after issue 14,
both backends). Encoded (base64): redaction matches the value only, so the encoded key stays in
the job folder on both backends: a known limit (docs/security.md), kept as a strict xfail. Any
encoding, split or cipher the code under test chooses defeats a text match; only a task whose
tests reach the product in another process (``app_server``: the agent phase's environment,
never the verifier's) keeps it away from the code under test.
"""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from lbtest import TASKS, derive_task, job_dir, lb, one_result

AGENTS = Path(__file__).resolve().parent / "agents"
SECRET = "sk-attack2-Zq8v3NwX1yPm"


def _leak(encoding: str, jobs: Path, shared: Path, backend: str) -> tuple[dict, list[bytes]]:
    """Run the leaking agent; returns the result and the bytes of every file of the job."""
    task = derive_task(TASKS / "calc", shared / f"calc-secret-{encoding}",
                       toml={r"^\[verifier\]$": '[verifier]\nenv = { API_KEY = "${LB_ATTACK_SECRET}" }'},
                       append_instruction=f"ENCODING={encoding}")
    lb("run", "-p", task, "-a", f"script:{AGENTS / 'leak_verifier_secret.sh'}", "-o", jobs, "--backend", backend,
       check=True, timeout=900, env={"LB_ATTACK_SECRET": SECRET})
    r = one_result(jobs)
    assert r["status"] == "unresolved", (r["status"], r["reason"])
    kept = [p.read_bytes() for p in job_dir(jobs).rglob("*") if p.is_file() and not p.is_symlink()]
    return r, kept


@pytest.mark.slow
def test_the_verifier_secret_read_by_the_code_under_test_is_redacted(jobs, shared, backend):
    r, kept = _leak("plain", jobs, shared, backend)
    assert any(b"AssertionError" in data and b"***" in data for data in kept)  # the leak ran, masked
    assert not any(SECRET.encode() in data for data in kept)


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason="known limit: redaction matches the secret's value only; the code "
                                       "under test runs in the runner's process with the verifier's env and "
                                       "can write any encoding of it into the reports the job keeps")
def test_an_encoded_verifier_secret_stays_out_of_the_job(jobs, shared, backend):
    encoded = base64.b64encode(SECRET.encode())
    r, kept = _leak("base64", jobs, shared, backend)
    assert not any(encoded in data for data in kept)
