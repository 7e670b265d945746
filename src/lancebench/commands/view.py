"""``lancebench view``: build the report site of some jobs and serve it on 127.0.0.1."""

from __future__ import annotations

import shutil
import signal
import tempfile
from pathlib import Path

import typer

from lancebench.commands.common import load_finished_jobs
from lancebench.errors import ConfigError, LancebenchError
from lancebench.report.build import ReportOptions
from lancebench.report.html.serve import make_server, url
from lancebench.report.html.site import build_index, build_site

EXAMPLES = """Examples:

  lancebench view              (the jobs under ./jobs, where run writes them)

  lancebench view jobs/run-1

  lancebench view jobs/ --port 8080 --out site/

The site is the one `lancebench report --html` writes; in a temporary folder, each trials data file is
written when first opened. It is served on 127.0.0.1 only, until Ctrl-C or SIGTERM; a temporary
site is removed either way."""


def view(
    job_dirs: list[Path] | None = typer.Argument(None, metavar="[JOB_DIR...]",
                                                 help="Job folders, or folders of them (default: jobs/)."),
    port: int = typer.Option(0, "--port", min=0, max=65535, help="Port on 127.0.0.1 (0: any free port)."),
    out: Path | None = typer.Option(None, "-o", "--out",
                                    help="Keep the site in this folder (default: a temporary one)."),
    bootstrap: int = typer.Option(1000, "--bootstrap", min=1, help="Bootstrap resamples of the intervals."),
) -> None:
    """Serve the report site of JOB_DIR... (default: jobs/) on 127.0.0.1 and print its address."""
    if not job_dirs:
        if not Path("jobs").is_dir():
            typer.echo("error: no JOB_DIR given and there is no jobs/ folder here; name the job folders "
                       "(lancebench view JOB_DIR...)", err=True)
            raise typer.Exit(code=2)
        job_dirs = [Path("jobs")]
    site = out if out is not None else Path(tempfile.mkdtemp(prefix="lancebench-site-"))
    signal.signal(signal.SIGTERM, _interrupt)  # stopped by a service manager: clean up as on Ctrl-C
    try:
        try:
            jobs = load_finished_jobs(job_dirs)
            options = ReportOptions(n_boot=bootstrap)
            # a site kept in a folder is whole (it opens from disk too); a temporary one writes
            # each trials data file (50 trials) when one of its trials is first opened
            pages = build_index(jobs, site, options) if out is None else None
            if pages is None:
                build_site(jobs, site, options)
            try:
                server = make_server(site, port, pages)
            except OSError as exc:
                raise ConfigError(f"--port {port}: cannot listen on 127.0.0.1:{port} ({exc.strerror or exc}); "
                                  f"pick another port, or --port 0 for any free one") from exc
        except LancebenchError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(code=2) from exc
        typer.echo(f"serving {site} at {url(server)} (Ctrl-C to stop)", err=False)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            server.server_close()
    finally:
        if out is None:  # the temporary site (report files only, never a sandbox's) goes with the server
            shutil.rmtree(site, ignore_errors=True)


def _interrupt(signum: int, frame: object) -> None:
    """SIGTERM ends ``view`` as Ctrl-C does, so its temporary site is removed (issue 28: it stayed)."""
    raise KeyboardInterrupt


def register(app: typer.Typer) -> None:
    """Add the ``view`` command to the ``lancebench`` app."""
    app.command("view", epilog=EXAMPLES, help=view.__doc__)(view)
