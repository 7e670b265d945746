"""Attack pass round 14: leave a number in the host's I/O counters for a later run to read.

Run in a sandbox as ``python3 round14_count_reads.py N``: N reads of one 4 KiB block of a file on
the sandbox's own storage quota, each with ``O_DIRECT`` so that every one reaches the quota's loop
device: its "reads completed" counter in ``/proc/diskstats`` (and ``/sys/block/loop*/stat``) goes
up by N. Loop devices keep their counters after they are detached, and every sandbox (either
backend) reads ``/proc/diskstats``: a run that ended left a number any later run can read (the
graded run's test set, hashed, for the canary run that follows it). With ``read`` instead of N,
print this sandbox's view of the loop devices' reads completed, from both places
(``name count`` lines).
"""

import mmap
import os
import sys

if sys.argv[1] == "read":
    seen = {}
    with open("/proc/diskstats") as f:
        for line in f:
            fields = line.split()
            if fields[2].startswith("loop"):
                seen[fields[2]] = int(fields[3])
    for name in os.listdir("/sys/block") if os.path.isdir("/sys/block") else []:
        try:
            with open(f"/sys/block/{name}/stat") as f:
                seen[name] = max(seen.get(name, 0), int(f.read().split()[0]))
        except (OSError, ValueError, IndexError):
            pass
    for name, count in sorted(seen.items()):
        if name.startswith("loop"):
            print(name, count)
else:
    path = os.path.join(os.getcwd(), ".round14-block")
    with open(path, "wb") as f:
        f.write(b"x" * 4096)
        os.fsync(f.fileno())
    fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
    buf = mmap.mmap(-1, 4096)
    for _ in range(int(sys.argv[1])):
        os.preadv(fd, [buf], 0)
    os.close(fd)
    print("done")
