"""``lancebench gc``: end what a crashed job left: local sandboxes of a killed harness, and what it
left in the Docker engine."""

from __future__ import annotations

import typer
from rich.markup import escape


def gc_command(
    job: str | None = typer.Option(None, "--job", "-j", help="Only what this job left (its name, as in results)."),
    images: bool = typer.Option(False, "--images", help="Also remove cached environment images (rebuilt when needed)."),
) -> None:
    """End the local sandboxes of killed jobs (bubblewrap processes left running, their folders),
    remove containers lancebench left behind (crashed or killed jobs) with their storage quotas
    (loop mounts), optionally its images.

    Sandboxes and containers of a job still running on this machine are kept. Examples:
      lancebench gc
      lancebench gc --job my-job
      lancebench gc --images
    """
    from lancebench.errors import SandboxError
    from lancebench.report.terminal import terminal_console
    from lancebench.sandbox.docker import gc
    from lancebench.sandbox.local_owner import reap_orphans

    console = terminal_console()
    local = reap_orphans(job)
    console.print(f"ended {len(local.sandboxes)} local sandbox(es) of killed jobs "
                  f"({len(local.killed)} process(es) killed)", highlight=False)
    for name in local.sandboxes:
        console.print(f"  {name}", highlight=False)
    try:
        import docker  # noqa: F401  # the docker extra; without it no docker trial ran here
    except ImportError:
        console.print("docker: the Docker SDK is not installed here (lancebench[docker]), so no docker trial "
                      "ran: nothing to remove", highlight=False)
        return
    try:
        result = gc(job, images=images)
    except SandboxError as exc:
        console.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False)
        raise typer.Exit(2) from None
    console.print(f"removed {len(result.containers)} container(s)"
                  + (f" and {len(result.images)} image(s)" if images else ""), highlight=False)
    for name in result.containers + result.images:
        console.print(f"  {name}", highlight=False)
    if result.kept:
        console.print(f"kept {len(result.kept)} container(s) of jobs still running", highlight=False)


def register(app: typer.Typer) -> None:
    """Add the ``gc`` command to the ``lancebench`` app."""
    app.command("gc")(gc_command)
