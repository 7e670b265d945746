"""Hidden tests: ordinal() with negative numbers (F2P) and nearby behaviour (P2P)."""

import inflect
import pytest


@pytest.fixture
def p():
    return inflect.engine()


# ---- fail-to-pass: negative numbers -------------------------------------------------


def test_negative_int_single_digit(p):
    assert [p.ordinal(n) for n in (-1, -2, -3, -4, -9, -10)] == [
        "-1st",
        "-2nd",
        "-3rd",
        "-4th",
        "-9th",
        "-10th",
    ]


def test_negative_int_teens_take_th(p):
    assert [p.ordinal(n) for n in (-11, -12, -13, -111, -112, -113)] == [
        "-11th",
        "-12th",
        "-13th",
        "-111th",
        "-112th",
        "-113th",
    ]


def test_negative_int_larger(p):
    assert [p.ordinal(n) for n in (-21, -22, -23, -101, -1000, -1002)] == [
        "-21st",
        "-22nd",
        "-23rd",
        "-101st",
        "-1000th",
        "-1002nd",
    ]


def test_negative_numeric_strings(p):
    assert [p.ordinal(s) for s in ("-1", "-2", "-3", "-12", "-23", "-101")] == [
        "-1st",
        "-2nd",
        "-3rd",
        "-12th",
        "-23rd",
        "-101st",
    ]


def test_negative_floats_follow_positive_rule(p):
    # positive floats take the suffix of their last digit: 1.5 -> '1.5th', 2.3 -> '2.3rd'
    assert p.ordinal(-1.5) == "-1.5th"
    assert p.ordinal(-2.3) == "-2.3rd"
    assert p.ordinal("-2.3") == "-2.3rd"


def test_negative_ordinal_to_words(p):
    assert p.number_to_words(p.ordinal(-21)) == "minus twenty-first"
    assert p.number_to_words(p.ordinal(-3)) == "minus third"


# ---- pass-to-pass: existing behaviour ------------------------------------------------


def test_positive_ints(p):
    assert [p.ordinal(n) for n in (0, 1, 2, 3, 4, 10, 21, 22, 23, 101, 1000)] == [
        "0th",
        "1st",
        "2nd",
        "3rd",
        "4th",
        "10th",
        "21st",
        "22nd",
        "23rd",
        "101st",
        "1000th",
    ]


def test_positive_teens(p):
    assert [p.ordinal(n) for n in (11, 12, 13, 111, 112, 113, 211)] == [
        "11th",
        "12th",
        "13th",
        "111th",
        "112th",
        "113th",
        "211th",
    ]


def test_positive_strings_and_floats(p):
    assert p.ordinal("1") == "1st"
    assert p.ordinal("23") == "23rd"
    assert p.ordinal("112") == "112th"
    assert p.ordinal(1.5) == "1.5th"
    assert p.ordinal("2.3") == "2.3rd"


def test_words(p):
    assert p.ordinal("one") == "first"
    assert p.ordinal("two") == "second"
    assert p.ordinal("twelve") == "twelfth"
    assert p.ordinal("twenty-one") == "twenty-first"
    assert p.ordinal("one hundred") == "one hundredth"
    assert p.ordinal("minus one") == "minus first"


def test_number_to_words_round_trip(p):
    assert p.number_to_words(p.ordinal(21)) == "twenty-first"
    assert p.number_to_words(p.ordinal(1000)) == "one thousandth"
    assert p.number_to_words(-21) == "minus twenty-one"
