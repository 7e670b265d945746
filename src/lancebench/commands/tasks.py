"""``lancebench tasks validate PATH...``: report every problem of every task."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.markup import escape

from lancebench.commands.common import console, exclude_tasks, fail, one_task_per_name, out, print_task_errors
from lancebench.commands.preflight import LOCAL_PUBLIC, public_phases
from lancebench.errors import LancebenchError
from lancebench.task.load import load_tasks
from lancebench.task.settings import (
    HARBOR_VERIFIER_DEFAULT,
    effective_settings,
    missing_host_vars,
    needs_network_filter,
    network_policy,
    verifier_network_choice,
    with_verifier_network,
)
from lancebench.task.steps import step_solution_dir
from lancebench.task.support import task_unsupported

tasks_app = typer.Typer(help="Inspect and validate task folders.", no_args_is_help=True)


@tasks_app.command("validate")
def validate(paths: list[Path] | None = typer.Argument(None, help="Task folders or folders of tasks."),
             path: list[Path] | None = typer.Option(None, "-p", "--path",
                                                    help="A task folder or a folder of tasks, as in run (repeatable)."),
             dataset: str | None = typer.Option(None, "-d", "--dataset", help="Or a dataset's tasks (e.g. mini)."),
             source: Path | None = typer.Option(None, "--source", help="The dataset's input (as for run)."),
             exclude: list[str] | None = typer.Option(None, "-x", "--exclude",
                                                      help="Leave out tasks whose name matches (glob, repeatable)."),
             lenient: bool = typer.Option(False, "--lenient", help="Keys unknown to Harbor's task model are "
                                          "reported and ignored instead of refused (tasks from another "
                                          "Harbor version).")) -> None:
    """Check task folders (task.toml, instruction, tests) and report every problem.

    Examples:
      lancebench tasks validate tests/fixtures/tasks
      lancebench tasks validate -d mini
    """
    tasks, errors = _load([*(paths or []), *(path or [])], dataset, source, lenient)
    if exclude:
        try:
            tasks, errors = exclude_tasks(tasks, errors, exclude, dataset or "the given folders")
        except LancebenchError as exc:
            raise fail(exc) from None
    from lancebench.judging.senior import senior_file_errors
    senior = {t.paths.root: senior_file_errors(t) for t in tasks}  # rubric.json, validation_spec.toml
    errors = errors + [e for found in senior.values() for e in found]
    tasks = [t for t in tasks if not senior[t.paths.root]]
    for t in tasks:
        out.print(f"[green]ok[/green] {t.name} ({t.kind}, ${t.price_usd:,.0f}, {t.split})")
        out.print(f"  network: {escape(network_summary(t))}", highlight=False, soft_wrap=True)
        for warning in task_warnings(t):
            out.print(f"  [yellow]warning[/yellow] {escape(warning)}", highlight=False)
        for field in task_unsupported(t):
            out.print(f"  [yellow]unsupported[/yellow] {escape(str(t.paths.task_toml))}: {escape(field)}",
                      highlight=False,
                      soft_wrap=True)
        for error in missing_host_vars(t):
            out.print(f"  [yellow]warning[/yellow] {escape(str(error))}", highlight=False)
    print_task_errors(errors)
    out.print(f"{len(tasks)} valid, {len(errors)} problem(s)")
    if errors:
        raise typer.Exit(1)


def _load(paths: list[Path] | None, dataset: str | None, source: Path | None,
          lenient: bool = False) -> tuple[list, list]:
    """The tasks (and task errors) of PATH... or of ``-d DATASET``; exits 2 naming the mistake
    when both or neither are given, or the dataset is unknown."""
    if bool(paths) == bool(dataset):
        console.print("[red]error:[/red] give task folders (PATH...) or -d DATASET, one of them (-p PATH is PATH)")
        raise typer.Exit(2)
    if paths:  # as run selects them: a folder named twice once, two folders of one name an error
        tasks, errors = load_tasks(list(paths), lenient=lenient)
        unique = list({t.paths.root: t for t in reversed(tasks)}.values())[::-1]
        tasks, twins = one_task_per_name(unique)
        return tasks, errors + twins
    from lancebench.datasets.registry import load_dataset
    try:
        return load_dataset(dataset or "", source=source)
    except LancebenchError as exc:
        console.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False)
        raise typer.Exit(2) from None


@tasks_app.command("init")
def init(path: Path = typer.Argument(..., help="The new task folder (its name is the task's name).")) -> None:
    """Write a minimal task folder (task.toml, instruction.md, environment/, tests/test.sh,
    solution/solve.sh) to edit: it validates, the oracle resolves it and nop does not.

    Example: lancebench tasks init my-task && lancebench run -p my-task -a oracle
    """
    from lancebench.commands.scaffold import init_task
    try:
        written = init_task(path)
    except LancebenchError as exc:
        raise fail(exc) from None
    for p in written:
        out.print(f"wrote {escape(str(p))}", highlight=False)
    out.print(f"next: lancebench tasks validate {escape(str(path))}; lancebench run -p {escape(str(path))} -a oracle "
              "(docs/tasks.md walks through the files)", highlight=False, soft_wrap=True)


@tasks_app.command("show")
def show(path: Path = typer.Argument(..., help="One task folder."),
         as_json: bool = typer.Option(False, "--json", help="Print the settings as JSON."),
         verifier_network: str = typer.Option("harbor", "--verifier-network",
                                              help="Show the networks of a run with this --verifier-network.")) -> None:
    """Print the settings lancebench will use for one task: workdir, limits, timeouts, network and
    env per phase (host values of ${VAR} entries are not printed), steps, protected paths, and
    every task.toml field lancebench does not act on. With --verifier-network none, the
    networks a run with that switch gives.

    Example: lancebench tasks show tests/fixtures/harbor/sizes --json
    """
    try:
        closed = verifier_network_choice(verifier_network)
    except LancebenchError as exc:
        raise fail(exc) from None
    tasks, errors = load_tasks([path], lenient=True)  # unknown keys are listed under "unsupported"
    tasks = with_verifier_network(tasks, closed)
    if errors or len(tasks) != 1:
        print_task_errors(errors)
        if not errors:
            out.print(f"{path}: holds {len(tasks)} tasks; pass one task folder")
        raise typer.Exit(1)
    settings = effective_settings(tasks[0]) | {"docker": docker_view(tasks[0]), "local": local_view(tasks[0]),
                                                "unsupported": task_unsupported(tasks[0])}
    if as_json:
        print(json.dumps(settings, indent=2))
        return
    for key, value in settings.items():
        out.print(f"[bold]{key}[/bold]: {escape(json.dumps(value))}", highlight=False)


def local_view(task) -> dict:
    """What a local run of ``task`` gives its phases that get the whole network: ``public_phases``
    and, when there are some, ``network_note`` (a namespace of their own with outbound access
    only, :data:`lancebench.commands.preflight.LOCAL_PUBLIC`) and ``slirp4netns_installed``
    (a local run refuses such a task without it)."""
    from lancebench.sandbox.local_net import slirp_missing
    phases = public_phases(task)
    return {"public_phases": phases,
            **({"network_note": LOCAL_PUBLIC, "slirp4netns_installed": not slirp_missing()} if phases else {})}


def network_summary(task) -> str:
    """Which network each phase gets and the key (or default) that decides it, one phrase per
    phase and step: ``agent no-network (lancebench default); verifier public (Harbor's default
    ...)``."""
    def phrase(label: str, policy) -> str:
        hosts = f" {', '.join(policy.hosts) or 'nothing'}" if policy.mode == "allowlist" else ""
        return f"{label} {policy.mode}{hosts} ({policy.source})"
    steps = [s.name for s in task.config.steps or []]
    if not steps:
        return "; ".join(phrase(phase, network_policy(task, phase)) for phase in ("agent", "verifier"))
    return "; ".join(phrase(f"step {name} {phase}", network_policy(task, phase, step=name))
                     for name in steps for phase in ("agent", "verifier"))


def docker_view(task) -> dict:
    """What a docker run of ``task`` will use: ``workdir`` (``[lancebench] workdir`` when the task
    sets it, else the image's ``WORKDIR``, else ``/app``; ``None`` with ``workdir_note`` while
    the image is not built), ``cpus`` (the task's, cut to the engine's CPU count as the docker
    sandbox does; ``None`` without an engine) and ``engine_cpus``; ``note`` when a value is
    cut or unknown. Never builds an image."""
    e = task.config.environment
    explicit = "workdir" in task.lb.model_fields_set
    view: dict = {"workdir": task.lb.workdir if explicit else None, "cpus": None, "engine_cpus": None}
    try:
        from lancebench.sandbox.docker_engine import client, engine_problem
        from lancebench.sandbox.docker_image import image_tag, resolve_ca_bundle
        problem = engine_problem()
    except ImportError as exc:  # the docker extra is not installed
        problem = str(exc)
    if problem:
        view["note"] = f"no Docker engine ({problem}): workdir and CPUs are known at run time"
        return view
    ncpu = int(client().info().get("NCPU") or 1)
    view.update(cpus=min(float(e.cpus), ncpu), engine_cpus=ncpu)
    notes = []
    if e.cpus > ncpu:
        notes.append(f"the task asks for {e.cpus:g} CPUs; the engine has {ncpu}: a run gets {ncpu}")
    if not explicit:
        tag = e.docker_image or image_tag(task, resolve_ca_bundle(None))
        try:
            view["workdir"] = client().api.inspect_image(tag)["Config"].get("WorkingDir") or "/app"
        except Exception:  # noqa: BLE001 - not built or not pulled yet: the engine's own error types vary
            notes.append(f"image {tag} is not here yet: the workdir is its WORKDIR (else /app)")
    if notes:
        view["note"] = "; ".join(notes)
    return view


def task_warnings(task) -> list[str]:
    """What is legal but probably a mistake: no reference solution, no price, no local recipe,
    a browser task's app server not named or started twice (:func:`app_server_warnings`)."""
    warnings = []
    if task.config.steps:  # each step's oracle: steps/<name>/solution/solve.sh, else solution/solve.sh
        lacking = [st.name for st in task.config.steps
                   if (d := step_solution_dir(task, st)) is None or not (d / "solve.sh").is_file()]
        if lacking:
            warnings.append(f"{task.paths.root}: no steps/<name>/solution/solve.sh for step(s) {', '.join(lacking)} "
                            "and no solution/solve.sh; the oracle and `lancebench check` cannot validate them")
    elif not task.paths.solve_sh.is_file():
        warnings.append(f"{task.paths.solve_sh}: missing; the oracle and `lancebench check` cannot validate the task")
    if task.price_usd == 0:
        warnings.append(f"{task.paths.task_toml}: no [lancebench] price_usd; the task earns $0")
    if (key := needs_network_filter(task)) is not None:  # said even without a local recipe: root matters too
        warnings.append(f"{task.paths.task_toml}: key '{key}' needs a network filter; "
                        "the task runs only with --backend docker, as root on the engine's machine")
    elif task.kind == "code" and task.lb.local is None:
        warnings.append(f"{task.paths.task_toml}: no [lancebench.local] recipe; "
                        "the task runs only with --backend docker")
    steps: list[str | None] = [st.name for st in task.config.steps or []] or [None]
    if any(network_policy(task, "verifier", step=name).source == HARBOR_VERIFIER_DEFAULT for name in steps):
        warnings.append(f"{task.paths.task_toml}: declares no network, so its verifier gets the whole network as "
                        "Harbor gives it: the code under test can reach the network while it is graded; "
                        'set [verifier] network_mode = "no-network" if the tests need none (docs/security.md)')
    return warnings + app_server_warnings(task)


def app_server_warnings(task) -> list[str]:
    """A browser task whose app server is not named (it runs as the test runner's user), or is
    named while ``tests/test.sh`` never reads ``LANCEBENCH_APP_SERVER`` (it would start a second one)."""
    if task.lb.app_server:
        scripts = [task.paths.test_sh, *sorted(task.paths.root.glob("steps/*/tests/test.sh"))]
        if not any("LANCEBENCH_APP_SERVER" in p.read_text(errors="replace") for p in scripts if p.is_file()):
            return [f"{task.paths.test_sh}: never reads LANCEBENCH_APP_SERVER, so it starts the app server too "
                    "while the harness runs [lancebench] app_server; start it only when that variable is unset "
                    "(docs/tasks.md)"]
    elif task.lb.browser:
        return [f"{task.paths.task_toml}: a browser task without [lancebench] app_server; the server the tests "
                "drive runs as the test runner's user and could reach it (docs/security.md); name it there"]
    return []


def register(app: typer.Typer) -> None:
    app.add_typer(tasks_app, name="tasks")
