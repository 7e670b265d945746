"""Hidden tests: the boolean column type "b" and booleans in automatic columns."""

import pytest
from texttable import Texttable


def cells(values, dtype=None):
    """Render one column without decoration and return its cell texts, top to bottom."""
    table = Texttable()
    table.set_deco(0)
    if dtype is not None:
        table.set_cols_dtype([dtype])
    table.add_rows([[v] for v in values], header=False)
    return [line.strip() for line in table.draw().splitlines()]


# --- fail-to-pass ------------------------------------------------------------------------

def test_bool_column_shows_true_and_false():
    assert cells([True, False], dtype="b") == ["True", "False"]


def test_bool_column_shows_truth_values():
    assert cells([1, 0, "x", "", 2.5, 0.0], dtype="b") == ["True", "False", "True", "False", "True", "False"]


def test_auto_column_shows_booleans():
    assert cells([True, False], dtype="a") == ["True", "False"]


def test_default_column_shows_booleans_among_numbers():
    assert cells([True, 3, False, 2.5]) == ["True", "3", "False", "2.500"]


def test_report_table_with_flags():
    table = Texttable()
    table.add_rows([["check", "passed"], ["lint", True], ["tests", False]])
    assert table.draw() == "\n".join([
        "+-------+--------+",
        "| check | passed |",
        "+=======+========+",
        "| lint  | True   |",
        "+-------+--------+",
        "| tests | False  |",
        "+-------+--------+",
    ])


def test_bool_type_is_documented():
    doc = Texttable.set_cols_dtype.__doc__
    assert '"b"' in doc or "'b'" in doc


# --- pass-to-pass ------------------------------------------------------------------------

def test_auto_column_formats_numbers_as_before():
    assert cells([1, 2.5, 1e9, "text"], dtype="a") == ["1", "2.500", "1.000e+09", "text"]


def test_integer_column_still_shows_booleans_as_numbers():
    assert cells([True, False, 2.6], dtype="i") == ["1", "0", "3"]


def test_text_and_float_columns_unchanged():
    assert cells([True, "x"], dtype="t") == ["True", "x"]
    assert cells([1, 2.25], dtype="f") == ["1.000", "2.250"]


def test_callable_dtype_unchanged():
    assert cells([True, 5], dtype=lambda v: f"<{v}>") == ["<True>", "<5>"]


def test_unknown_dtype_still_fails():
    with pytest.raises(KeyError):
        cells([1], dtype="z")
