"""The bottom of the house: what a job records and how it is read back.

- :mod:`lancebench.results.models`: ``TrialResult``, ``JobConfig``, ``Usage``, ``Timings``;
- :mod:`lancebench.results.paths`: ``JobPaths`` and ``TrialPaths``;
- :mod:`lancebench.results.store`: atomic writes and trial identities;
- :mod:`lancebench.results.load`: reading a job folder back (metrics and reports read through it);
- :mod:`lancebench.results.index`: the job's results index (``index.sqlite``) the loader reads;
- :mod:`lancebench.results.result_file`: reading one ``result.json``.

Nothing here imports from any other lancebench package but :mod:`lancebench.errors`
(see docs/architecture.md)."""
