"""A test agent (``-a swelancer_probe:LeakProbe``) that records everything an agent could see:
the instruction it is given, its environment variables, and every file it can read in its sandbox
(the workspace with its git history, /tmp, $HOME, /etc, anything else outside the system folders).
It then answers like the random agent would not: always the first proposal id."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from lancebench.agents.base import AgentContext, AgentOutcome

DUMP = r"""
set -u
echo "== env"; env
echo "== git"; git -C "$1" log --all -p --format=fuller 2>&1 | head -c 2000000
echo "== files"
find / \( -path /proc -o -path /sys -o -path /dev -o -path /usr -o -path /lib -o -path /lib64 -o -path /bin \
          -o -path /sbin -o -path /lib32 -o -path /libx32 \) -prune -o -type f -print 2>/dev/null | sort |
while IFS= read -r f; do echo "== file $f"; head -c 1000000 "$f" 2>&1; echo; done
"""


class LeakProbe:
    name = "leak-probe"

    async def run(self, ctx: AgentContext) -> AgentOutcome:
        with tempfile.TemporaryDirectory() as tmp:
            script = Path(tmp) / "probe.sh"
            script.write_text(DUMP)
            await ctx.sandbox.put(script, "/tmp/probe.sh")
        res = await ctx.sandbox.exec(["bash", "/tmp/probe.sh", ctx.workdir], cwd=ctx.workdir, timeout=120)
        (ctx.logs_dir / "seen.txt").write_text(
            "== instruction\n" + ctx.instruction + "\n" + res.stdout + "\n== stderr\n" + res.stderr,
            errors="surrogateescape")
        (ctx.logs_dir / "context.json").write_text(json.dumps(
            {"proposal_ids": ctx.proposal_ids, "answer_file": ctx.answer_file, "kind": ctx.kind,
             "options": ctx.options, "price_usd": ctx.price_usd}))
        return AgentOutcome(choice=(ctx.proposal_ids or [None])[0], message="probed")
