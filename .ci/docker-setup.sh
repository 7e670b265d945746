#!/usr/bin/env bash
# Give lancebench a real Docker engine, without any registry:
#   1. install docker.io and debootstrap when missing (apt-get);
#   2. start dockerd in the background unless an engine already answers, writing its PID to
#      $LANCEBENCH_DOCKERD_PIDFILE (default /tmp/lancebench-dockerd.pid) for .ci/docker-stop.sh;
#   3. wait until the engine answers (60 s at most);
#   4. build the base images the tests and the mini dataset use, locally, when absent:
#      - debian:bookworm-slim: `debootstrap --variant=minbase bookworm` + `docker import`;
#      - python:3.11-slim (only when a Dockerfile under src/lancebench/datasets or tests says
#        FROM python:3.11-slim, or LANCEBENCH_DOCKER_PYTHON_IMAGE=1): a stand-in built FROM the
#        debian image above with Debian's python3 (3.11) + venv + pip, `python`/`pip` on PATH and
#        pip allowed to install system-wide, as in the official image.
# The debootstrap root is cached as a tarball in $LANCEBENCH_CACHE (default ~/.cache/lancebench)
# so a fresh engine re-imports it in seconds.
#
# Environment: LANCEBENCH_DEBIAN_MIRROR (default: the first Debian URI in /etc/apt/sources.list*,
# else http://deb.debian.org/debian), LANCEBENCH_DOCKERD_LOG (default /tmp/lancebench-dockerd.log),
# LANCEBENCH_DOCKERD_ARGS (extra dockerd arguments, e.g. "--data-root /mnt/docker").
# Usage (from .ci/run):  .ci/docker-setup.sh && trap .ci/docker-stop.sh EXIT
set -euo pipefail

cd "$(dirname "$0")/.."
PIDFILE=${LANCEBENCH_DOCKERD_PIDFILE:-/tmp/lancebench-dockerd.pid}
LOG=${LANCEBENCH_DOCKERD_LOG:-/tmp/lancebench-dockerd.log}
CACHE=${LANCEBENCH_CACHE:-$HOME/.cache/lancebench}
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"

say() { printf '[docker-setup] %s\n' "$*" >&2; }

# 1. packages -------------------------------------------------------------------------------------
missing=()
command -v dockerd >/dev/null 2>&1 || missing+=(docker.io)
command -v debootstrap >/dev/null 2>&1 || missing+=(debootstrap)
if [ ${#missing[@]} -gt 0 ]; then
    say "installing ${missing[*]}"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# 2-3. engine -------------------------------------------------------------------------------------
if docker info >/dev/null 2>&1; then
    say "a Docker engine already answers; using it (not starting or stopping one)"
else
    say "starting dockerd (log: $LOG, pid file: $PIDFILE)"
    # shellcheck disable=SC2086
    $SUDO dockerd ${LANCEBENCH_DOCKERD_ARGS:-} >"$LOG" 2>&1 &
    echo $! >"$PIDFILE"
    for _ in $(seq 1 120); do
        docker info >/dev/null 2>&1 && break
        if ! kill -0 "$(cat "$PIDFILE")" 2>/dev/null; then
            say "dockerd exited; last lines of $LOG:"; tail -20 "$LOG" >&2; rm -f "$PIDFILE"; exit 1
        fi
        sleep 0.5
    done
    docker info >/dev/null 2>&1 || { say "dockerd did not answer within 60 s; see $LOG"; exit 1; }
fi

# 4. base images ----------------------------------------------------------------------------------
mirror() {
    if [ -n "${LANCEBENCH_DEBIAN_MIRROR:-}" ]; then echo "$LANCEBENCH_DEBIAN_MIRROR"; return; fi
    local uri
    uri=$( (grep -hE '^\s*URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}';
            grep -hE '^\s*deb\s' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | awk '{print $2}') \
          | grep -E '/debian/?$' | head -1 || true)
    echo "${uri:-http://deb.debian.org/debian}"
}

if ! docker image inspect debian:bookworm-slim >/dev/null 2>&1; then
    mkdir -p "$CACHE"
    tarball="$CACHE/debian-bookworm-minbase.tar"
    if [ ! -s "$tarball" ]; then
        root=$(mktemp -d /tmp/lancebench-rootfs.XXXXXX)
        m=$(mirror)
        say "debootstrap --variant=minbase bookworm from $m (about a minute)"
        $SUDO debootstrap --variant=minbase bookworm "$root" "$m" >"$CACHE/debootstrap.log" 2>&1 \
            || { say "debootstrap failed; last lines of $CACHE/debootstrap.log:"; tail -20 "$CACHE/debootstrap.log" >&2; exit 1; }
        # Keep the image small and its apt sources like the official image's.
        $SUDO rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/* "$root"/var/log/*.log
        printf 'deb %s bookworm main\ndeb %s bookworm-updates main\ndeb %s-security bookworm-security main\n' \
            "$m" "$m" "$m" | $SUDO tee "$root/etc/apt/sources.list" >/dev/null
        $SUDO tar -C "$root" -cf "$tarball.part" . && mv "$tarball.part" "$tarball"
        $SUDO rm -rf "$root"
    fi
    say "docker import debian:bookworm-slim"
    docker import -c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' -c 'CMD ["bash"]' \
        "$tarball" debian:bookworm-slim >/dev/null
fi

wants_python=${LANCEBENCH_DOCKER_PYTHON_IMAGE:-0}
if grep -rqsiE '^\s*FROM\s+python:3\.11-slim' --include=Dockerfile src/lancebench/datasets tests 2>/dev/null; then
    wants_python=1
fi
if [ "$wants_python" = 1 ] && ! docker image inspect python:3.11-slim >/dev/null 2>&1; then
    say "building python:3.11-slim (stand-in: Debian bookworm's python 3.11)"
    ctx=$(mktemp -d /tmp/lancebench-pyimage.XXXXXX)
    cat >"$ctx/Dockerfile" <<'EOF'
FROM debian:bookworm-slim
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
       python3 python3-venv python3-pip ca-certificates \
    && rm -rf /var/lib/apt/lists/* /usr/lib/python3.11/EXTERNALLY-MANAGED \
    && ln -s /usr/bin/python3 /usr/local/bin/python && ln -s /usr/bin/pip3 /usr/local/bin/pip
ENV LANG=C.UTF-8 PYTHON_VERSION=3.11
LABEL org.lancebench.stand-in="python:3.11-slim built locally from Debian bookworm"
CMD ["python3"]
EOF
    docker build -q -t python:3.11-slim "$ctx" >/dev/null
    rm -rf "$ctx"
fi
say "ready: $(docker version --format '{{.Server.Version}}') with $(docker images --format '{{.Repository}}:{{.Tag}}' | grep -cE '^(debian|python):') base image(s)"
