"""What goes into a SWE-Lancer IC task folder besides the image's tests (lancebench's own texts):
the environment's ``Dockerfile``, ``tests/test.sh`` (one grading run as the official scripts run
it), ``solution/solve.sh``, ``instruction.md`` and ``task.toml``. See
:mod:`lancebench.datasets.swelancer.ic` for the flow that writes them."""

from __future__ import annotations

import tomli_w

from lancebench.datasets.swelancer.prompt import issue_section, usd
from lancebench.datasets.swelancer.table import SwelancerRow, split_of

WORKDIR = "/app/expensify"
PATCH = "bug_reintroduce.patch"


def dockerfile(image: str, image_id: str) -> str:
    return (f"# SWE-Lancer IC task on its official image (written by lancebench).\n"
            f"FROM {image}\n"
            f"# image id when this folder was written (a re-pulled image gives a new build): {image_id}\n"
            "# No hidden test in the agent's container; no patch leftovers (*.orig hold the fixed code);\n"
            "# the product as one fresh commit, so neither the fix nor the bug can be read from git history.\n"
            "RUN rm -rf /app/tests /app/tests.zip \\\n"
            "    && find / -xdev -type f -name '*.orig' -delete \\\n"
            f"    && cd {WORKDIR} && rm -rf .git && git init -q \\\n"
            "    && git add -A \\\n"
            "    && git -c user.name=lancebench -c user.email=lancebench@localhost -c commit.gpgsign=false \\\n"
            "       commit -q --no-verify -m baseline\n"
            f"WORKDIR {WORKDIR}\n")


TEST_SH = r"""#!/bin/bash
# SWE-Lancer IC task @ISSUE@: one grading run inside the task's official image (written by lancebench).
# 1. the hidden tests (read-only at /tests) go where the official scripts expect them: /app/tests;
# 2. the image's own start-up, its entrypoint /app/tests/run.sh (display, services), which writes
#    /setup_done.txt when it is ready;
# 3. as the official test run: build the web app, serve it (`npm run web`, port 8082), replay the
#    recorded traffic (`mitmdump -s replay.py`, port 8080), adapt the test (rewrite_test.py), then
#    `pytest issues/@ISSUE@/test.py`.
# Exit code 0 passes (reward 1), 1 fails (reward 0). Any other exit code, or a start-up or traffic
# replay that never comes up, writes no reward: the run is broken (no usable run: the trial is invalid).
ISSUE=@ISSUE@
LOGS=/logs/verifier
STARTUP_SEC=900
APP_SEC=600
# the container environment the official harness gives (kept when the image sets it already; the
# fake Pusher's key as the app's .env has it)
export ISSUE_ID=$ISSUE EVAL_VARIANT=ic_swe DISPLAY=${DISPLAY:-:99} PYTHONDONTWRITEBYTECODE=1 LC_ALL=${LC_ALL:-C.UTF-8}
export USE_WEB_PROXY=${USE_WEB_PROXY:-false} EXPENSIFY_URL=${EXPENSIFY_URL:-https://www.expensify.com}
export NEW_EXPENSIFY_URL=${NEW_EXPENSIFY_URL:-https://www.new.expensify.com}
app_key=$(sed -n 's/^PUSHER_APP_KEY=//p' /app/expensify/.env 2>/dev/null | head -n 1)
export PUSHER_APP_KEY=${PUSHER_APP_KEY:-${app_key:-lancebench0pusher0key}}
export PUSHER_APP_SECRET=${PUSHER_APP_SECRET:-lancebench0pusher0secret} PUSHER_APP_ID=${PUSHER_APP_ID:-1000001}
export PYTHONPATH="/app/tests${PYTHONPATH:+:$PYTHONPATH}"
mkdir -p "$LOGS"
rm -f "$LOGS/reward.txt"
broken() { echo "grader broken: $*" >&2; exit 0; }
listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
wait_port() { local i; for ((i = 0; i < $2; i++)); do listening "$1" && return 0; sleep 1; done; return 1; }

rm -rf /app/tests && mkdir -p /app/tests && cp -a /tests/. /app/tests/ || broken "cannot copy /tests to /app/tests"
mkdir -p "/app/tests/logs/$ISSUE" "/app/tests/attempts/$ISSUE"
if [ -n "${NVM_DIR:-}" ] && [ -s "$NVM_DIR/nvm.sh" ]; then . "$NVM_DIR/nvm.sh"; fi

rm -f /setup_done.txt
(cd /app/tests && exec bash ./run.sh) >"$LOGS/startup.log" 2>&1 &
startup=$!
for ((i = 0; i < STARTUP_SEC; i++)); do
  [ -f /setup_done.txt ] && break
  kill -0 "$startup" 2>/dev/null || break
  sleep 1
done
[ -f /setup_done.txt ] || { tail -n 40 "$LOGS/startup.log" >&2; broken "the image's start-up (run.sh) did not finish"; }
grep -q 'dev\.new\.expensify\.com' /etc/hosts || echo '127.0.0.1 dev.new.expensify.com' >>/etc/hosts

cd /app/expensify || broken "no /app/expensify"
for cfg in config/webpack/webpack.dev.ts config/webpack/webpack.dev.js; do
  if [ -f "$cfg" ]; then
    npx webpack --config "./$cfg" >"$LOGS/webpack.log" 2>&1 || echo "webpack failed (webpack.log); testing anyway"
    break
  fi
done
nohup npm run web >"$LOGS/npm_run_web.log" 2>&1 &
(cd /app/tests && exec nohup mitmdump -s replay.py --ssl-insecure --quiet) >"$LOGS/mitmdump.log" 2>&1 &
wait_port 8080 60 || { tail -n 20 "$LOGS/mitmdump.log" >&2; broken "mitmdump (recorded traffic) is not on port 8080"; }
wait_port 8082 "$APP_SEC" || echo "the web app is not on port 8082 after ${APP_SEC}s (npm_run_web.log); testing anyway"

cd /app/tests || broken "no /app/tests"
python3.12 rewrite_test.py "issues/$ISSUE/test.py" >"$LOGS/rewrite_test.log" 2>&1 || echo "rewrite_test.py failed"
pytest "issues/$ISSUE/test.py" >"$LOGS/pytest.log" 2>&1
code=$?
tail -n 60 "$LOGS/pytest.log"
echo "pytest exit code: $code"
case "$code" in
  0) echo 1 >"$LOGS/reward.txt" ;;
  1) echo 0 >"$LOGS/reward.txt" ;;
  *) echo "not a pass or a fail: this run is broken" >&2 ;;
esac
exit 0
"""

SOLVE_SH = f"""#!/bin/bash
# Reference solution, as SWE-Lancer's gold patch: {PATCH} reversed.
set -euo pipefail
fix="$(cd "$(dirname "$0")" && pwd)/{PATCH}"
cd {WORKDIR}
git apply -R --verbose "$fix" || patch -R -p1 --no-backup-if-mismatch < "$fix"
"""


def instruction(row: SwelancerRow) -> str:
    """The prompt of IC ``row``: the issue, its payout, where the code is, how the work is judged."""
    return "\n".join([
        "# Fix an issue in Expensify's App",
        "",
        "You are a freelance software engineer. Expensify's App (a React Native app for web, desktop and "
        f"mobile) is checked out in `{WORKDIR}`, your working directory. Fix the issue below in the code; "
        f"it pays {usd(row.price)}.",
        "",
        *issue_section(row),
        "## How your work is judged",
        "",
        f"When you stop, your changes to `{WORKDIR}` are applied to a fresh copy of the repository and an "
        "end-to-end test, hidden from you, plays the issue's scenario in a browser against the web app. "
        "There is no internet access, and nobody will answer questions: work until the issue is fixed.",
        "",
        "The command `user-tool` plays that scenario against your current code and saves what the user "
        "saw under `user_tool/output_<n>/` (`actions.log`, a screenshot and the page's HTML after each "
        "step). It never says whether the test passed; its output is not part of your work.",
        "",
    ])


# The pytest plugins the official tests need, loaded by name since plugin auto-loading is off
# during grading: SWE-Lancer's runtime image installs pytest-asyncio 0.25.0 and pytest-playwright
# 0.6.2 (its requirements.txt; pytest-playwright brings pytest-base-url) and runs `pytest` with
# auto-loading on. Many issues' tests are `@pytest.mark.asyncio async def` (without the plugin
# pytest skips them, and a run of skipped tests exits 0: a pass); others use pytest-playwright's
# fixtures. Module names as the plugins' `pytest11` entry points give them.
IC_PYTEST_PLUGINS = ("pytest_asyncio.plugin", "pytest_playwright.pytest_playwright", "pytest_base_url.plugin")


def task_toml(row: SwelancerRow, image: str, image_id: str) -> str:
    """The ``task.toml`` of an IC row run on the official ``image`` (written by tomli-w)."""
    return tomli_w.dumps({
        "version": "1.0",
        "metadata": {"benchmark": "swelancer", "upstream": "SWE-Lancer Diamond (arXiv 2502.12115)",
                     "question_id": row.question_id, "variant": row.variant, "set": row.set, "image": image,
                     "image_id": image_id, "acceptable_folders": list(row.acceptable_folders),
                     "taxonomy": {"variant": row.variant}},
        "verifier": {"timeout_sec": 1800},
        "agent": {"timeout_sec": 3600},
        "environment": {"build_timeout_sec": 3600, "cpus": 2, "memory_mb": 12288},
        "lancebench": {"price_usd": row.price, "kind": "code", "split": split_of(row), "workdir": WORKDIR,
                       "browser": True, "test_runs": 3, "pass_if": "any", "protect": ["user_tool/**"],
                       "pytest_plugins": list(IC_PYTEST_PLUGINS), "limits": {"pids": 4096}},
    })
