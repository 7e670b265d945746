"""Metrics as pure, vectorised functions: pass@k, pass^k, confidence intervals, dollars earned,
the economics of an AI-first workflow and code quality. Definitions and sources: docs/metrics.md."""

from lancebench.metrics.economics import (
    AIFirstTable,
    ai_first_table,
    api_cost_share,
    contribution_ratio,
    cost_savings,
    earnings_per_api_usd,
)
from lancebench.metrics.errors import MetricsError, ResultsError
from lancebench.metrics.intervals import (
    bootstrap_mean_interval,
    bootstrap_ratio_interval,
    bootstrap_sum_interval,
    bootstrap_weights,
    closed_form_interval,
    normal_mean_interval,
    wilson_interval,
)
from lancebench.metrics.money import available_usd, earn_rate, earned_usd, price_bucket
from lancebench.metrics.passk import expected_attempts_table, pass_at_k, pass_at_k_table, pass_hat_k, pass_hat_k_table
from lancebench.metrics.summary import compute_metrics, summarize
from lancebench.metrics.table import TrialTable
from lancebench.results.load import JobResults, load_job, load_jobs, load_result

__all__ = [
    "AIFirstTable", "JobResults", "MetricsError", "ResultsError", "TrialTable",
    "ai_first_table", "api_cost_share", "available_usd", "bootstrap_mean_interval", "bootstrap_ratio_interval",
    "bootstrap_sum_interval", "bootstrap_weights", "closed_form_interval", "compute_metrics",
    "contribution_ratio", "cost_savings", "earn_rate", "earned_usd", "earnings_per_api_usd",
    "expected_attempts_table", "load_job", "load_jobs", "load_result", "normal_mean_interval", "pass_at_k",
    "pass_at_k_table", "pass_hat_k", "pass_hat_k_table", "price_bucket", "summarize", "wilson_interval",
]
