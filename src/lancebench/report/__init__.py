"""Reports across job folders: ``lancebench report`` (table, JSON, CSV, Parquet)."""

from lancebench.report.build import ReportOptions, build_report, build_rows

__all__ = ["ReportOptions", "build_report", "build_rows"]
