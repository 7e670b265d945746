"""Hidden tests: reversed() of an empty numeric_range (F2P) and nearby behaviour (P2P)."""

from datetime import datetime, timedelta
from decimal import Decimal
from fractions import Fraction

from more_itertools import numeric_range


# ---- fail-to-pass: reversing ranges that hold no values -------------------------------


def test_reversed_empty_stop_only():
    assert list(reversed(numeric_range(0))) == []
    assert list(reversed(numeric_range(0.0))) == []
    assert list(reversed(numeric_range(-3))) == []


def test_reversed_empty_equal_bounds():
    assert list(reversed(numeric_range(5, 5))) == []
    assert list(reversed(numeric_range(5, 5, 2))) == []
    assert list(reversed(numeric_range(5, 5, -1))) == []


def test_reversed_empty_step_points_away():
    assert list(reversed(numeric_range(5, 0))) == []
    assert list(reversed(numeric_range(0, 5, -1))) == []
    assert list(reversed(numeric_range(1.0, 0.5, 0.25))) == []


def test_reversed_empty_other_numeric_types():
    assert list(reversed(numeric_range(Decimal("1.5"), Decimal("1.5")))) == []
    assert list(reversed(numeric_range(Fraction(1, 3), Fraction(1, 3), Fraction(1, 3)))) == []
    day = timedelta(days=1)
    start = datetime(2024, 3, 1)
    assert list(reversed(numeric_range(start, start, day))) == []
    assert list(reversed(numeric_range(start, start - day, day))) == []


def test_reversed_empty_slice():
    assert list(reversed(numeric_range(0, 10)[5:5])) == []


def test_reversed_empty_is_an_iterator():
    it = reversed(numeric_range(3, 3))
    assert next(it, "done") == "done"
    assert [x for x in reversed(numeric_range(2, 1))] == []


# ---- pass-to-pass: non-empty ranges and other operations on empty ones ------------------


def test_reversed_growing():
    assert list(reversed(numeric_range(0, 10, 2))) == [8, 6, 4, 2, 0]
    assert list(reversed(numeric_range(3))) == [2, 1, 0]


def test_reversed_shrinking():
    assert list(reversed(numeric_range(10, 0, -3))) == [1, 4, 7, 10]


def test_reversed_single_value():
    assert list(reversed(numeric_range(7, 8))) == [7]
    assert list(reversed(numeric_range(7, 6, -1))) == [7]


def test_reversed_other_numeric_types():
    assert list(reversed(numeric_range(0.0, 2.0, 0.5))) == [1.5, 1.0, 0.5, 0.0]
    assert list(reversed(numeric_range(Decimal("0.5"), Decimal("2.0"), Decimal("0.5")))) == [
        Decimal("1.5"),
        Decimal("1.0"),
        Decimal("0.5"),
    ]
    day = timedelta(days=1)
    start = datetime(2024, 3, 1)
    assert list(reversed(numeric_range(start, start + 3 * day, day))) == [
        datetime(2024, 3, 3),
        datetime(2024, 3, 2),
        datetime(2024, 3, 1),
    ]


def test_empty_range_forward_operations():
    r = numeric_range(5, 5)
    assert list(r) == []
    assert len(r) == 0
    assert not r
    assert 5 not in r
    assert r == numeric_range(0)
    assert r.count(5) == 0
