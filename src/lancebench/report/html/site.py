"""``lancebench report --html OUT_DIR``: a static site that opens from disk with no network.

Layout of OUT_DIR: ``index.html`` (leaderboard, plots, task table, analysis, contamination),
``trial.html`` (the one page that shows any trial: ``trial.html?t=<job>/<n>/<trial>``),
``trials/<job>/<n>.js`` (the trials' data files, :data:`~lancebench.report.html.tasks.CHUNK_TRIALS`
trials each, a task's attempts together: each trial's page body rendered here, escaped as every
agent-written text, and each distinct instruction of the file once; gzip, then base64, in a script
that calls ``lbChunk(path, data)``: :func:`chunk_script`), ``static/`` (the site's CSS and JS, the
Pygments CSS and the vendored Chart.js). A page is a file of its own only for the index, so the
site costs no disk block per trial; data files are scripts, not fetched, so the site opens from
disk (``file://``) as well as from ``lancebench view``. Pages carry a Content-Security-Policy that
allows only the site's own files, so even hostile text that slipped through could load nothing."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import shutil
import threading
from importlib import resources
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup

from lancebench.analysis.trial import analysis_report, analyze_jobs
from lancebench.errors import ConfigError
from lancebench.report.build import ReportOptions, build_rows, group_results
from lancebench.report.html.compare import compare_context
from lancebench.report.html.highlight import markdown, pygments_css
from lancebench.report.html.plots import color, cost_per_task, earnings_chart, pareto_chart, passk_chart
from lancebench.report.html.tasks import TRIAL_PAGE, task_rows, task_table_data, trial_chunks, trial_key, trial_links
from lancebench.report.html.trial_page import trial_context
from lancebench.results.load import JobResults
from lancebench.results.models import TrialResult
from lancebench.results.text import visible

STATIC = "static"


def _env() -> Environment:
    env = Environment(loader=PackageLoader("lancebench.report.html", "templates"),
                      autoescape=select_autoescape(default=True, default_for_string=True))
    env.filters["pct"] = lambda x: "–" if x is None else f"{100 * x:.1f}%"
    env.filters["usd"] = lambda x: "unknown" if x is None else f"${x:,.2f}"
    env.filters["num"] = lambda x: "–" if x is None else f"{x:,}"
    env.filters["ci"] = lambda p: "" if not p or p[0] is None else f"[{100 * p[0]:.0f}–{100 * p[1]:.0f}]"
    return env


def json_island(data: Any) -> Markup:
    """``data`` as JSON safe inside ``<script type="application/json">`` (no ``<``, ``>``, ``&``)."""
    text = json.dumps(data, allow_nan=False, separators=(",", ":"))
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


def instruction_data(text: str) -> tuple[str, dict]:
    """(sha256 of the text shown, 20 hex; ``{"chars": N, "html": ...}``) of instruction ``text``
    rendered (Markdown, escaped as every agent-written text), which ``static/site.js`` puts into the
    trial page's ``#instruction-text``. A data file holds each distinct one once."""
    text = visible(text)  # controls shown as symbols, as on the page itself (results/text.py)
    return hashlib.sha256(text.encode()).hexdigest()[:20], {"chars": len(text), "html": str(markdown(text))}


def chunk_script(path: str, payload: dict) -> str:
    """The data file at ``path`` (``trials/<job>/<n>.js``) holding ``payload`` (``{"trials": {key:
    {"title", "html", "instruction"}}, "instructions": {digest: {"chars", "html"}}}``): JSON,
    gzip-compressed (RFC 1952), base64 (RFC 4648), as ``lbChunk("<path>", "<base64>");``, which
    ``static/site.js`` decodes in the browser (``DecompressionStream``)."""
    packed = base64.b64encode(gzip.compress(json.dumps(payload, separators=(",", ":")).encode(), mtime=0))
    return f"lbChunk({json.dumps(path)}, \"{packed.decode()}\");\n"


def read_chunk(file: Path) -> dict:
    """The payload of a data file written by :func:`chunk_script` (for tools and tests; the
    browser reads it with ``static/site.js``). Raises ValueError when ``file`` is not one."""
    text = Path(file).read_text(encoding="utf-8")
    head, sep, rest = text.partition(', "')
    if not head.startswith("lbChunk(") or not sep:
        raise ValueError(f"{file}: not a trial data file of the site")
    return json.loads(gzip.decompress(base64.b64decode(rest.rstrip().removesuffix('");'))))


def trial_html(site: Path, href: str) -> str:
    """The body of the trial page at ``href`` (``trial.html?t=<job>/<n>/<trial>``, as the index
    links it) as the shared page shows it, the instruction put in: for tools and tests. Raises
    KeyError when the data file has no such trial, OSError when it is missing."""
    job, n, key = href.split("?t=", 1)[1].split("/")
    payload = read_chunk(Path(site) / "trials" / job / f"{n}.js")
    trial = payload["trials"][key]
    html = trial["html"]
    if trial["instruction"]:
        shown = payload["instructions"][trial["instruction"]]["html"]
        html = html.replace('<div class="md" id="instruction-text"></div>',
                            f'<div class="md" id="instruction-text">{shown}</div>')
    return html


def config_label(agent: str, model: str | None, dataset: str | None, settings: str = "", *,
                 full: bool = False) -> str:
    """How a configuration is named on the site: ``agent · model · dataset · settings`` (no
    settings part when ``settings`` is ""; a ``script:PATH`` agent by the file name of its script
    unless ``full``)."""
    if agent.startswith("script:") and not full:
        agent = "script:" + Path(agent[7:]).name
    return " · ".join(x for x in (agent, model or "no model", dataset, settings) if x)


def short_labels(groups: dict[tuple, tuple[list[TrialResult], list[str]]]) -> list[str]:
    """One label per configuration of ``groups`` (:func:`lancebench.report.build.group_results`),
    in order, showing what tells it apart: agent, model and dataset, and of its settings
    (:meth:`lancebench.results.models.TrialConfig.settings_parts`) only those not shared by every
    configuration of the same agent, model and dataset (none when it is the only one). The full
    configuration is :func:`config_label` of the whole key."""
    parts = {key: trials[0].config.settings_parts() if trials[0].config else [] for key, (trials, _) in groups.items()}
    labels = []
    for key in groups:
        siblings = [parts[k] for k in groups if k[:3] == key[:3]]
        common = set.intersection(*(set(p) for p in siblings)) if len(siblings) > 1 else set(parts[key])
        agent, model, dataset = key[:3]
        labels.append(config_label(agent, model, dataset, " ".join(p for p in parts[key] if p not in common)))
    return labels


def _copy_static(out: Path) -> None:
    dest = out / STATIC
    if dest.exists():
        shutil.rmtree(dest)
    src = resources.files("lancebench.report.html") / STATIC
    with resources.as_file(src) as path:
        shutil.copytree(path, dest, ignore=shutil.ignore_patterns("README.md", "__pycache__"))
    (dest / "pygments.css").write_text(pygments_css(), encoding="utf-8")


def _leaderboard(rows: list[dict], labels: list[str], summaries: dict) -> list[dict]:
    out = []
    for i, r in enumerate(rows):
        k = str(max(r["attempts_max"], 1))
        key = (r["agent"], r["model"], r["dataset"], r["settings"])
        tokens = (r["input_tokens"] + r["output_tokens"]) / r["tasks"] if r["tasks"] else None
        out.append({"i": i, "label": labels[i], "full": config_label(*key, full=True), "color": color(i), "r": r,
                    "k": k, "cost_per_task": cost_per_task(r), "tokens_per_task": tokens,
                    "findings": summaries.get(key, {}).get("trials_with_findings", 0)})
    return out


def _key(d: dict) -> tuple:
    """The configuration of a report row or analysis record (see :meth:`TrialResult.configuration`)."""
    return (d["agent"], d["model"], d["dataset"], d["settings"])


def site_context(jobs: list[JobResults], options: ReportOptions,
                 links: dict[tuple[str, str], str]) -> tuple[dict, dict]:
    """(index page context, analysis by trial id) for ``jobs``, each trial linked to its page in
    ``links`` ((job, trial id) -> address, :func:`lancebench.report.html.tasks.trial_links`).
    Leaderboard rows, plot series and the task table's columns are the configurations of
    :func:`group_results`, in its order."""
    rows = build_rows(jobs, ReportOptions(kmax=options.kmax, confidence=options.confidence, n_boot=options.n_boot,
                                          seed=options.seed))
    groups = group_results(jobs)
    configs = list(groups)
    labels = short_labels(groups)
    label_of = dict(zip(configs, labels, strict=True))
    price_rows = build_rows(jobs, ReportOptions(by="price", kmax=options.kmax, n_boot=1, seed=options.seed))
    buckets = sorted({p["by_value"] for p in price_rows if p["by_value"] != "(all)"},
                     key=lambda b: float(b.strip("$+").split("-")[0]))
    per_row = [[p for p in price_rows if _key(p) == c and p["by_value"] != "(all)"] for c in configs]
    analyses = analyze_jobs(jobs)
    analysis = analysis_report(analyses)
    summaries = {_key(s): s for s in analysis["configurations"]}
    tasks, filters = task_rows([r for j in jobs for r in j.results], configs, links)
    charts = {"pareto": pareto_chart(rows, labels), "passk": passk_chart(rows, labels),
              "earnings": earnings_chart(per_row, labels, buckets)}
    finding_rows = [(t, f, links[(t["job"], t["trial_id"])], config_label(t["agent"], t["model"], None))
                    for t in analysis["trials"] for f in t["findings"]]
    ctx = {"jobs": jobs, "rows": _leaderboard(rows, labels, summaries), "labels": labels, "charts": charts,
           "chart_json": {k: json_island(v) for k, v in charts.items()}, "filters": filters,
           "task_json": json_island(task_table_data(tasks)),
           "analysis": analysis, "finding_rows": finding_rows, "phases": analysis["phases"],
           "summaries": [(label_of[_key(s)], s) for s in analysis["configurations"]],
           "contamination": [(label_of[_key(c)], c) for c in analysis["contamination"]],
           "guided": [(label_of[_key(g)], g) for g in analysis["guided"]],
           "judged": any(r.get("tasteful_solve_rate") is not None for r in rows), "confidence": options.confidence,
           "n_boot": options.n_boot, **compare_context(jobs, options)}
    return ctx, {a.result.trial_id + "\0" + a.result.job: a for a in analyses}


class TrialPages:
    """The trials' data files of a site in ``out_dir`` (see the module docstring), each written
    when first asked for (:meth:`write`, used by ``lancebench view``) or all at once
    (:meth:`write_all`, ``report --html``). ``chunks``: :func:`trial_chunks` of the jobs'
    results. Thread-safe."""

    def __init__(self, env: Environment, jobs: list[JobResults], by_trial: dict, out_dir: Path,
                 chunks: dict[str, list[TrialResult]]):
        self.out_dir = out_dir
        self._env, self._by_trial, self._chunks = env, by_trial, chunks
        self._folders = {(r.job, r.trial_id): job.path / "trials" / r.trial_id for job in jobs for r in job.results}
        self._written: set[str] = set()
        self._lock = threading.Lock()

    def write_all(self) -> None:
        """Write every data file. Raises OSError when the folder cannot be written."""
        for path in self._chunks:
            self.write(path)

    def write(self, path: str) -> Path | None:
        """Write the data file at ``path`` (``trials/<job>/<n>.js``) unless it is written, and
        return its path; None when the site has no such file. Raises OSError as :meth:`write_all`."""
        trials = self._chunks.get(path)
        if trials is None:
            return None
        with self._lock:
            if path not in self._written:
                dest = self.out_dir / path
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_text(chunk_script(path, self._payload(trials)), encoding="utf-8")
                self._written.add(path)
        return self.out_dir / path

    def _payload(self, trials: list[TrialResult]) -> dict:
        payload: dict[str, dict] = {"trials": {}, "instructions": {}}
        template = self._env.get_template("trial_main.html")
        for r in trials:
            ctx = trial_context(self._folders[(r.job, r.trial_id)], self._by_trial[r.trial_id + "\0" + r.job])
            digest = None
            if ctx["instruction"]:
                digest, data = instruction_data(ctx["instruction"])
                payload["instructions"].setdefault(digest, data)
            label = config_label(*r.configuration())
            html = template.render(root=".", label=label, **ctx)
            payload["trials"][trial_key(r.trial_id)] = {
                "title": visible(f"{r.task} #{r.attempt} · {label}"), "instruction": digest,
                "html": visible(html)}  # any bytes the agent wrote (results/text.py)
        return payload


def build_site(jobs: list[JobResults], out_dir: Path, options: ReportOptions = ReportOptions()) -> Path:
    """Write the site for ``jobs`` into ``out_dir`` (created; files of an older site are replaced),
    every trial data file included, and return the path of ``index.html``. Raises
    :class:`ConfigError` when ``out_dir`` cannot be written or is a file."""
    pages = build_index(jobs, out_dir, options)
    try:
        pages.write_all()
    except OSError as exc:
        raise _unwritable(pages.out_dir, exc) from exc
    return pages.out_dir / "index.html"


def _unwritable(out_dir: Path, exc: OSError) -> ConfigError:
    return ConfigError(f"--html {out_dir}: cannot write the site: {exc.strerror or exc} "
                       f"(check that the folder is writable)")


def build_index(jobs: list[JobResults], out_dir: Path, options: ReportOptions = ReportOptions()) -> TrialPages:
    """Write the site for ``jobs`` into ``out_dir`` but its trials' data files (``index.html``,
    ``trial.html``, ``static/``), and return the :class:`TrialPages` that write them. Raises
    :class:`ConfigError` as :func:`build_site`."""
    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise ConfigError(f"--html {out_dir}: is a file; give a folder for the site")
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        env = _env()
        chunks = trial_chunks(r for job in jobs for r in job.results)
        ctx, by_trial = site_context(jobs, options, trial_links(chunks))
        _copy_static(out_dir)
        index = out_dir / "index.html"
        index.write_text(visible(env.get_template("index.html").render(root=".", **ctx)), encoding="utf-8")
        (out_dir / TRIAL_PAGE).write_text(env.get_template("trial.html").render(root="."), encoding="utf-8")
    except OSError as exc:
        raise _unwritable(out_dir, exc) from exc
    return TrialPages(env, jobs, by_trial, out_dir, chunks)
