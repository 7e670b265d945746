"""The SWE-Lancer adapter (``-d swelancer[:manager|:ic|...]``), one module per concern:

- :mod:`.adapter`: the dataset entry points (:func:`task_folders`, :func:`summary`) and the
  manager tasks' folders;
- :mod:`.table` (reading and checking the task table), :mod:`.source` (finding or fetching it),
  :mod:`.prompt` (instructions), :mod:`.repo` (``--repo-path`` commits);
- :mod:`.ic`, :mod:`.ic_files`, :mod:`.ic_images`: IC tasks on the official per-task images;
- :mod:`.report`: the per-variant breakdown of a job's results.

Imports run one way: ``adapter`` → ``ic`` → ``ic_files`` / ``ic_images`` → ``prompt`` →
``table``; no module imports ``adapter``, and this package imports none of them (so importing one
module loads only what it needs).
"""
