"""Hidden tests: texttable cells holding NaN or infinity in numeric columns."""

from decimal import Decimal

from texttable import Texttable

NAN = float("nan")
INF = float("inf")


def cells(values, dtype=None, precision=None):
    """Render one column without decoration and return its cell texts, top to bottom."""
    table = Texttable()
    table.set_deco(0)
    if dtype is not None:
        table.set_cols_dtype([dtype])
    if precision is not None:
        table.set_precision(precision)
    table.add_rows([[v] for v in values], header=False)
    return [line.strip() for line in table.draw().splitlines()]


# --- fail-to-pass ------------------------------------------------------------------------

def test_nan_in_default_column_is_drawn():
    table = Texttable()
    table.add_rows([["value"], [NAN]])
    assert "nan" in table.draw()


def test_table_with_a_missing_score():
    table = Texttable()
    table.add_rows([["name", "score"], ["a", 1.5], ["b", NAN]])
    assert table.draw() == "\n".join([
        "+------+-------+",
        "| name | score |",
        "+======+=======+",
        "| a    | 1.500 |",
        "+------+-------+",
        "| b    | nan   |",
        "+------+-------+",
    ])


def test_nan_among_numbers_in_auto_column():
    assert cells([1, 2.5, NAN, 1e9], dtype="a") == ["1", "2.500", "nan", "1.000e+09"]


def test_nan_text_in_auto_column():
    assert [c.lower() for c in cells(["NaN"], dtype="a")] == ["nan"]


def test_decimal_nan_in_auto_column():
    assert [c.lower() for c in cells([Decimal("NaN")])] == ["nan"]


def test_nan_in_integer_column():
    assert cells([3, NAN, 4.6], dtype="i") == ["3", "nan", "5"]


def test_infinity_in_integer_column():
    assert cells([INF, -INF], dtype="i") == ["inf", "-inf"]


def test_nan_with_custom_precision():
    assert cells([0.25, NAN], dtype="a", precision=1) == ["0.2", "nan"]


# --- pass-to-pass ------------------------------------------------------------------------

def test_auto_column_formats_regular_values():
    assert cells([1, 2.5, 1e9, -3, "abc"], dtype="a") == ["1", "2.500", "1.000e+09", "-3", "abc"]


def test_auto_column_none_is_text():
    assert cells([None], dtype="a") == ["None"]


def test_integer_column_rounds():
    assert cells([89.6, 89.4, "12"], dtype="i") == ["90", "89", "12"]


def test_float_and_exp_columns_show_nan_and_infinity():
    assert cells([NAN, INF, -INF], dtype="f") == ["nan", "inf", "-inf"]
    assert cells([NAN, INF, -INF], dtype="e") == ["nan", "inf", "-inf"]


def test_auto_column_shows_infinity():
    assert cells([INF, -INF], dtype="a") == ["inf", "-inf"]


def test_text_column_keeps_text():
    assert cells(["NaN", 1.5], dtype="t") == ["NaN", "1.5"]


def test_callable_dtype_is_used():
    assert cells([NAN, 2], dtype=lambda x: "<%s>" % x) == ["<nan>", "<2>"]


def test_errors_of_callable_dtype_reach_the_caller():
    def strict(value):
        raise ValueError("bad cell %r" % (value,))

    table = Texttable()
    table.set_cols_dtype([strict])
    try:
        table.add_row([1])
    except ValueError as exc:
        assert "bad cell" in str(exc)
    else:
        raise AssertionError("the ValueError of the dtype function was swallowed")
