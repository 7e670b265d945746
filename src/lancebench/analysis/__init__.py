"""Trajectory analysis (benchmark awareness, reward-hacking attempts, phases of work) and the
contamination check. Rules first (:mod:`.rules`, :mod:`.phases`); an optional model classifier
(:mod:`.classifier`) runs behind ``lancebench analyze --judge-model``."""
