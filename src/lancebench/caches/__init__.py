"""Where lancebench keeps its caches (:mod:`.cache`) and snapshots of host repositories
(:mod:`.checkout`). Low in the layers: imports neither sandboxes nor backends; the builds that use
them live in :mod:`lancebench.backends`."""
