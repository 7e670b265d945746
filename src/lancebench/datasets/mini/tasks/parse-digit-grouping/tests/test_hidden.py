"""Hidden tests: the "," and "_" digit grouping options in parse's number formats."""

from decimal import Decimal

import pytest

import parse


def value(fmt, text):
    result = parse.parse(fmt, text)
    assert result is not None, (fmt, text)
    return result[0]


# --- fail-to-pass ------------------------------------------------------------------------

def test_comma_grouped_integer():
    assert value("{:,d}", "1,234,567") == 1234567


def test_underscore_grouped_integer():
    assert value("{:_d}", "1_234_567") == 1234567


def test_grouped_integer_with_sign():
    assert value("{:,d}", "-9,876") == -9876
    assert value("{:+,d}", "+1,000") == 1000


def test_grouped_format_accepts_numbers_below_a_thousand():
    assert value("{:,d}", "999") == 999
    assert value("{:,d}", "0") == 0


@pytest.mark.parametrize("spec", [",d", "_d"])
def test_integers_round_trip_through_format(spec):
    for n in (0, 7, 1000, 65536, 10**9, -123456789):
        assert value("{:%s}" % spec, format(n, spec)) == n


def test_grouped_floats():
    assert value("{:,f}", "1,234.5") == 1234.5
    assert value("{:,.2f}", "12,345.67") == 12345.67
    assert value("{:_f}", "1_000.25") == 1000.25


def test_floats_round_trip_through_format():
    for x in (0.5, 1234.125, 9876543.25, -1000.75):
        assert value("{:,.3f}", format(x, ",.3f")) == x


def test_grouped_decimal():
    assert value("{:,F}", "1,234.50") == Decimal("1234.50")


def test_grouped_general_and_percentage():
    assert value("{:,g}", format(12345.0, ",g")) == 12345.0
    assert value("{:,%}", format(12.5, ",%")) == 12.5


def test_underscore_grouped_hex_binary_octal():
    assert value("{:_x}", "dead_beef") == 0xDEADBEEF
    assert value("{:_b}", format(1234567890, "_b")) == 1234567890
    assert value("{:_o}", format(8**9 - 1, "_o")) == 8**9 - 1


def test_grouped_number_inside_text():
    result = parse.search("total: {:,d} EUR", "Invoice 7, total: 12,000 EUR, due today")
    assert result[0] == 12000
    assert [r[0] for r in parse.findall("{:,d} units", "1,000 units and 2,500,000 units")] == [1000, 2500000]


def test_named_grouped_field():
    assert parse.parse("{count:,d} items", "1,024 items")["count"] == 1024


def test_grouping_with_width_and_alignment():
    assert value("{:>10,d}", "    12,345") == 12345
    assert value("{:10,d}", "    12,345") == 12345
    assert value("{:<12,.1f}", "1,234.5     ") == 1234.5


# --- pass-to-pass ------------------------------------------------------------------------

def test_plain_d_does_not_accept_separators():
    assert parse.parse("{:d}", "1,234") is None
    assert parse.parse("{:d}", "1234")[0] == 1234


def test_n_type_still_handles_thousands():
    assert value("{:n}", "1,234,567") == 1234567
    assert value("{:n}", "1.234.567") == 1234567


def test_other_number_types_unchanged():
    assert value("{:d}", "0x1F") == 31
    assert value("{:x}", "ff") == 255
    assert value("{:b}", "0b101") == 5
    assert value("{:f}", "3.25") == 3.25
    assert value("{:.2f}", "3.25") == 3.25
    assert value("{:g}", "1e3") == 1000.0
    assert value("{:%}", "50%") == 0.5
    assert value("{:5d}", "  123") == 123


def test_underscore_and_comma_as_fill_characters():
    assert value("{:_>8d}", "____1234") == 1234
    assert value("{:,>8d}", ",,,,1234") == 1234


def test_unknown_type_still_rejected():
    with pytest.raises(ValueError):
        parse.compile("{:,q}")
    with pytest.raises(ValueError):
        parse.compile("{:q}")
