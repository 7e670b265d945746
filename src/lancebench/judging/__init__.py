"""Senior grading (Senior SWE-Bench) inside lancebench: judges that read a snapshot of the patched
repository through read-only tools and answer in validated structured form, with any model
(a litellm name or ``local``).

- :mod:`~lancebench.judging.snapshot`: the read-only tools over hostile content;
- :mod:`~lancebench.judging.conversation`: the bounded judge loop (turns, tokens, time, schema);
- :mod:`~lancebench.judging.rubric`, :mod:`~lancebench.judging.taste`: the two judges;
- :mod:`~lancebench.judging.bloat`: patch bloat by pygments SLOC, without a model;
- :mod:`~lancebench.judging.verdict`: resolved with validation, tasteful solve, thresholds;
- :mod:`~lancebench.judging.record`: a judge's run as a ``JudgeRecord`` (``ok|skipped|failed:<why>``).

Layer: above ``llm/`` and ``grading/``; below ``runner/`` and ``commands/``. See docs/judges.md.
"""
