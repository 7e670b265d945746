"""Shell programs the docker backend runs inside containers to end process trees.

They use only POSIX ``sh`` builtins (``read``, ``kill``, globbing, parameter expansion), so they
work in any image with a ``/bin/sh`` (dash, bash, busybox) and keep working when a fork bomb has
used up the container's process limit (a builtin needs no new process).

How a tree is found. Every ``docker exec`` process is a session leader whose parent pid is 0 (as
seen inside the container). A command runs under :data:`WRAPPER`, which prints its own pid on the
first line of stdout (the harness strips that line) and then runs the command as a child, so the
wrapper's pid is the session id of everything the command starts. :func:`reap` ``S`` ends:

- every process whose session or process group is ``S``;
- every descendant of those (found by parent pid; processes are stopped with SIGSTOP first, so
  none can fork or be re-parented while the tree is walked);
- every orphan (parent pid 1) outside session 1 (the container's keeper) and outside any other
  live exec session: a daemon that double-forked and called ``setsid`` to escape.

Then everything found gets SIGKILL. Processes of another uid are skipped (no CAP_KILL), which is
why the harness runs the killer as the command's own user.
"""

from __future__ import annotations

# lb_reap S: stop then kill the tree of session S (see the module docstring); spares itself ($$).
REAP = r'''
lb_reap() {
  lb_s=$1; lb_marked=" "; lb_round=0
  while [ "$lb_round" -lt 40 ]; do
    lb_round=$((lb_round + 1)); lb_new=0; lb_live=" "
    for lb_d in /proc/[0-9]*; do
      { read -r lb_st < "$lb_d/stat"; } 2>/dev/null || continue
      lb_r=${lb_st##*) }
      set -- $lb_r
      if [ "$2" = 0 ] && [ "${lb_d#/proc/}" != 1 ]; then lb_live="$lb_live${lb_d#/proc/} "; fi
    done
    for lb_d in /proc/[0-9]*; do
      lb_p=${lb_d#/proc/}
      if [ "$lb_p" = "$$" ] || [ "$lb_p" = 1 ]; then continue; fi
      case "$lb_marked" in *" $lb_p "*) continue ;; esac
      { read -r lb_st < "$lb_d/stat"; } 2>/dev/null || continue
      lb_r=${lb_st##*) }
      set -- $lb_r
      lb_hit=0
      if [ "$4" = "$lb_s" ] || [ "$3" = "$lb_s" ] || [ "$lb_p" = "$lb_s" ]; then
        lb_hit=1
      else
        case "$lb_marked" in *" $2 "*) lb_hit=1 ;; esac
      fi
      if [ "$lb_hit" = 0 ] && [ "$2" = 1 ] && [ "$4" != 1 ]; then
        case "$lb_live" in *" $4 "*) ;; *) lb_hit=1 ;; esac
      fi
      if [ "$lb_hit" = 1 ]; then
        kill -STOP "$lb_p" 2>/dev/null
        lb_marked="$lb_marked$lb_p "; lb_new=1
      fi
    done
    [ "$lb_new" = 0 ] && break
  done
  for lb_p in $lb_marked; do kill -KILL "$lb_p" 2>/dev/null; done
  for lb_p in $lb_marked; do kill -CONT "$lb_p" 2>/dev/null; done
  return 0
}
'''

#: First stdout line of every command: ``PID_PREFIX`` + the wrapper's pid + newline (stripped).
PID_PREFIX = b"\x00lancebench-exec-pid="

# Run as: /bin/sh -c WRAPPER lancebench-exec ARGV...
# A command given as a string arrives as ``bash -c CMD``; images without bash run it with sh.
# The command is a child (not exec'd), so the wrapper's pid stays the session id of the tree;
# when the command ends, whatever it left behind is ended too (as the local backend does).
WRAPPER = REAP + r'''
printf '\000lancebench-exec-pid=%s\n' "$$"
if [ "$1" = bash ] && ! command -v bash >/dev/null 2>&1; then shift; set -- sh "$@"; fi
"$@"
lb_rc=$?
lb_reap "$$"
exit "$lb_rc"
'''

# Run as: /bin/sh -c KILLER lancebench-kill PID
KILLER = REAP + r'''
lb_reap "$1"
'''
