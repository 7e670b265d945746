"""``lancebench report --html OUT_DIR``: a static site that opens from disk with no network.

Layout of OUT_DIR: ``index.html`` (leaderboard, plots, task table, analysis, contamination),
``trials/<job>/<trial_id>.html`` (one page per trial), ``static/`` (the site's CSS and JS, the
Pygments CSS and the vendored Chart.js). Pages carry a Content-Security-Policy that allows only
the site's own files, so even hostile text that slipped through could load nothing."""

from __future__ import annotations

import json
import shutil
from importlib import resources
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup

from lancebench.analysis.trial import analysis_report, analyze_jobs
from lancebench.errors import ConfigError
from lancebench.report.build import ReportOptions, build_rows, group_results
from lancebench.report.html.highlight import pygments_css
from lancebench.report.html.plots import color, cost_per_task, earnings_chart, pareto_chart, passk_chart
from lancebench.report.html.tasks import page_href, task_rows, trial_href
from lancebench.report.html.trial_page import trial_context
from lancebench.results.load import JobResults

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
    text = json.dumps(data, allow_nan=False)
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


def config_label(agent: str, model: str | None, dataset: str | None, *, full: bool = False) -> str:
    """How a configuration is named on the site: ``agent · model · dataset`` (a ``script:PATH``
    agent by the file name of its script unless ``full``)."""
    if agent.startswith("script:") and not full:
        agent = "script:" + Path(agent[7:]).name
    return " · ".join(x for x in (agent, model or "no model", dataset) if x)


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
        s = summaries.get((r["agent"], r["model"], r["dataset"]), {})
        tokens = (r["input_tokens"] + r["output_tokens"]) / r["tasks"] if r["tasks"] else None
        out.append({"i": i, "label": labels[i], "full": config_label(r["agent"], r["model"], r["dataset"], full=True),
                    "color": color(i), "r": r, "k": k, "cost_per_task": cost_per_task(r),
                    "tokens_per_task": tokens, "findings": s.get("trials_with_findings", 0)})
    return out


def site_context(jobs: list[JobResults], options: ReportOptions) -> tuple[dict, dict]:
    """(index page context, analysis by trial id) for ``jobs``."""
    rows = build_rows(jobs, ReportOptions(kmax=options.kmax, confidence=options.confidence, n_boot=options.n_boot,
                                          seed=options.seed))
    configs = list(group_results(jobs))
    labels = [config_label(*c) for c in configs]
    price_rows = build_rows(jobs, ReportOptions(by="price", kmax=options.kmax, n_boot=1, seed=options.seed))
    buckets = sorted({p["by_value"] for p in price_rows if p["by_value"] != "(all)"},
                     key=lambda b: float(b.strip("$+").split("-")[0]))
    per_row = [[p for p in price_rows if (p["agent"], p["model"], p["dataset"]) == c and p["by_value"] != "(all)"]
               for c in configs]
    analyses = analyze_jobs(jobs)
    analysis = analysis_report(analyses)
    summaries = {(s["agent"], s["model"], s["dataset"]): s for s in analysis["configurations"]}
    tasks, filters = task_rows([r for j in jobs for r in j.results], configs)
    charts = {"pareto": pareto_chart(rows, labels), "passk": passk_chart(rows, labels),
              "earnings": earnings_chart(per_row, labels, buckets)}
    finding_rows = [(t, f, page_href(t["job"], t["trial_id"]), config_label(t["agent"], t["model"], None))
                    for t in analysis["trials"] for f in t["findings"]]
    ctx = {"jobs": jobs, "rows": _leaderboard(rows, labels, summaries), "labels": labels, "charts": charts,
           "chart_json": {k: json_island(v) for k, v in charts.items()}, "tasks": tasks, "filters": filters,
           "analysis": analysis, "finding_rows": finding_rows, "phases": analysis["phases"],
           "summaries": [(labels[configs.index((s["agent"], s["model"], s["dataset"]))], s)
                         for s in analysis["configurations"]],
           "judged": any(r.get("tasteful_solve_rate") is not None for r in rows), "confidence": options.confidence,
           "n_boot": options.n_boot, "href": trial_href}
    return ctx, {a.result.trial_id + "\0" + a.result.job: a for a in analyses}


def build_site(jobs: list[JobResults], out_dir: Path, options: ReportOptions = ReportOptions()) -> Path:
    """Write the site for ``jobs`` into ``out_dir`` (created; files of an older site are replaced)
    and return the path of ``index.html``. Raises :class:`ConfigError` when ``out_dir`` cannot be
    written or is a file."""
    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise ConfigError(f"--html {out_dir}: is a file; give a folder for the site")
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        env = _env()
        ctx, by_trial = site_context(jobs, options)
        _copy_static(out_dir)
        index = out_dir / "index.html"
        index.write_text(env.get_template("index.html").render(root=".", **ctx), encoding="utf-8")
        page = env.get_template("trial.html")
        for job in jobs:
            for r in job.results:
                a = by_trial[r.trial_id + "\0" + r.job]
                dest = out_dir / trial_href(r)
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_text(page.render(root="../..", label=config_label(r.agent, r.model, r.dataset),
                                            **trial_context(job.path / "trials" / r.trial_id, a)), encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"--html {out_dir}: cannot write the site: {exc.strerror or exc} "
                          f"(check that the folder is writable)") from exc
    return index
