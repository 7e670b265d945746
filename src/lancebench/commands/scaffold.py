"""``lancebench tasks init NAME``: a minimal task folder in Harbor's layout (as Harbor's ``tasks
init``) that ``tasks validate`` accepts, that the oracle resolves and the ``nop`` agent does not,
on both backends. docs/tasks.md works through it."""

from __future__ import annotations

from pathlib import Path

from lancebench.errors import ConfigError

TASK_TOML = """\
version = "1.0"

[metadata]                 # free-form; [metadata.taxonomy] feeds `lancebench report --by`
author_name = ""
difficulty = "easy"
category = "bugfix"

[verifier]
timeout_sec = 120          # seconds for tests/test.sh

[agent]
timeout_sec = 600          # the agent's wall-time budget (seconds)

[environment]
build_timeout_sec = 600

[lancebench]
price_usd = 100            # what solving the task earns (USD)
kind = "code"

[lancebench.local]         # the local backend's recipe: environment/setup.sh fills /app
setup = "setup.sh"
"""

INSTRUCTION = """\
`hello.sh` should print `Hello, world` but prints `Hello, wrld`. Fix it.
"""

FILES = {
    "task.toml": TASK_TOML,
    "instruction.md": INSTRUCTION,
    "environment/repo/hello.sh": '#!/bin/sh\necho "Hello, wrld"\n',
    "environment/setup.sh": ("#!/bin/bash\n# local backend: runs once per environment, leaves the repository in /app\n"
                             "set -euo pipefail\ncp -r /task-env/repo/. /app/\n"),
    "environment/Dockerfile": "FROM debian:bookworm-slim\nWORKDIR /app\nCOPY repo/ /app/\n",
    "tests/test.sh": ("#!/bin/bash\n# The verifier: runs after the agent's work is applied, in a fresh sandbox;\n"
                      "# writes the reward (1 = solved) to /logs/verifier/reward.txt.\ncd /app\n"
                      'if [ "$(sh hello.sh)" = "Hello, world" ]; then echo 1; else echo 0; fi '
                      "> /logs/verifier/reward.txt\n"),
    "solution/solve.sh": "#!/bin/bash\n# The reference solution (the oracle agent runs it in /app)\nset -e\n"
                         "sed -i 's/wrld/world/' hello.sh\n",
}
EXECUTABLE = {"environment/repo/hello.sh", "environment/setup.sh", "tests/test.sh", "solution/solve.sh"}


def init_task(root: Path) -> list[Path]:
    """Write the example task into the new folder ``root`` (its name is the task's name) and
    return the files written. Raises :class:`ConfigError` when ``root`` exists and is not an
    empty folder, so no file of the user's is overwritten."""
    root = Path(root)
    if root.exists() and (not root.is_dir() or any(root.iterdir())):
        raise ConfigError(f"{root}: exists and is not an empty folder; name a new folder for the task")
    written = []
    try:
        for rel, text in FILES.items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            if rel in EXECUTABLE:
                path.chmod(0o755)
            written.append(path)
    except OSError as exc:
        raise ConfigError(f"{root}: cannot be written ({exc.strerror or exc}); name a folder you can write") from None
    return written
