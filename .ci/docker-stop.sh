#!/usr/bin/env bash
# Stop the dockerd that .ci/docker-setup.sh started, by the PID it wrote; an engine that was
# already running before setup (no PID file) is left alone. Waits up to 30 s, then SIGKILL.
set -uo pipefail
PIDFILE=${LANCEBENCH_DOCKERD_PIDFILE:-/tmp/lancebench-dockerd.pid}
[ -s "$PIDFILE" ] || exit 0
pid=$(cat "$PIDFILE")
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
if kill -0 "$pid" 2>/dev/null; then
    $SUDO kill -TERM "$pid"
    for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    if kill -0 "$pid" 2>/dev/null; then
        echo "[docker-stop] dockerd $pid did not stop in 30 s; killing it" >&2
        $SUDO kill -KILL "$pid"
    fi
fi
rm -f "$PIDFILE"
