"""Datasets: the registry of named task sets, the bundled ``mini``, and adapters."""
