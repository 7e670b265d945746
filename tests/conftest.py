"""Shared pytest configuration.

Task fixtures under tests/fixtures hold hidden tests and repositories of fixture tasks (for
example tasks/calc/tests/test_calc.py, which imports a module that only exists inside the task's
sandbox): they are data for lancebench, not tests of lancebench, so pytest must not collect them.
"""

collect_ignore_glob = ["fixtures/*"]
