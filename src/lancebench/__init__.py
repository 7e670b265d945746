"""lancebench: run coding agents on real tasks in sandboxes, grade them with hidden tests,
and report pass@k and dollars earned."""

__version__ = "0.1.0"
