#!/bin/bash
# Verifier: serve the app from /app on 127.0.0.1, run the Playwright tests against it in Chromium.
# Under lancebench the harness starts the app server itself, under another uid than these tests
# ([lancebench] app_server in task.toml; LANCEBENCH_APP_SERVER=1 here); elsewhere this script does.
export PYTHONDONTWRITEBYTECODE=1
mkdir -p /logs/verifier
echo 0 > /logs/verifier/reward.txt
cd /tests || exit 1  # the runner's own steps never run from the repository (its modules would shadow theirs)

# Preflight: a browser that cannot start is a broken grader (no reward: the trial is invalid), not a failed fix.
python - <<'PY' || { echo "Chromium did not start" >&2; rm -f /logs/verifier/reward.txt; exit 2; }
from playwright.sync_api import sync_playwright
with sync_playwright() as p:
    b = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu",
        "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
        "--disable-dev-shm-usage"])
    b.new_page().goto("about:blank")
    b.close()
PY

PORT=8765
server=
if [ -z "${LANCEBENCH_APP_SERVER:-}" ]; then
    (cd /app && exec python server.py --host 127.0.0.1 --port "$PORT") >/tmp/app-server.log 2>&1 &
    server=$!
fi
python - "$PORT" <<'PY' || { echo "the app did not start:"; cat /tmp/app-server.log 2>/dev/null; [ -n "$server" ] && kill "$server"; exit 1; }
import socket, sys, time
deadline = time.time() + 20
while time.time() < deadline:
    try:
        socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=1).close()
        sys.exit(0)
    except OSError:
        time.sleep(0.1)
sys.exit(1)
PY

APP_URL="http://127.0.0.1:$PORT/" python -m pytest /tests/test_e2e.py --rootdir=/tests -p no:cacheprovider \
    -o addopts="" -q --junitxml=/logs/verifier/junit.xml
code=$?
[ -n "$server" ] && kill "$server" 2>/dev/null
if [ "$code" -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; fi
exit 0
