"""Hidden tests: fractional seconds in parse's datetime types keep every microsecond."""

from datetime import datetime, time, timedelta, timezone

import pytest

import parse


def micro(fmt, text):
    result = parse.parse(fmt, text)
    assert result is not None, (fmt, text)
    return result[0].microsecond


# --- fail-to-pass ------------------------------------------------------------------------

def test_iso_reported_value():
    assert micro("{:ti}", "2023-01-01T12:00:00.000249") == 249


@pytest.mark.parametrize("digits", ["000251", "000489", "001009", "125014", "520986"])
def test_iso_values_that_used_to_lose_one(digits):
    assert micro("{:ti}", "2024-02-29 23:59:59." + digits) == int(digits)


def test_iso_with_utc_offset():
    value = parse.parse("{:ti}", "2023-06-30T08:15:30.000249+02:00")[0]
    assert value.microsecond == 249
    assert value.utcoffset() == timedelta(hours=2)


def test_iso_round_trip_of_isoformat():
    for us in (249, 251, 1009, 261495, 999999):
        dt = datetime(2021, 3, 4, 5, 6, 7, us)
        assert parse.parse("{:ti}", dt.isoformat())[0] == dt


def test_iso_every_microsecond_sampled():
    parser = parse.compile("{:ti}")
    wrong = []
    for us in range(0, 1000000, 89):
        got = parser.parse("2020-01-01T00:00:00.%06d" % us)[0].microsecond
        if got != us:
            wrong.append((us, got))
    assert wrong == []


def test_time_type():
    assert parse.parse("{:tt}", "12:00:00.000249")[0] == time(12, 0, 0, 249)


def test_other_datetime_types():
    assert micro("{:tg}", "01/02/2023 12:00:00.000249") == 249
    assert micro("{:ta}", "01/02/2023 12:00:00.000249") == 249
    assert micro("{:te}", "Mon, 2 Jan 2023 12:00:00.000249 +0000") == 249
    assert micro("{:th}", "02/Jan/2023:12:00:00.000249 +0000") == 249
    assert micro("{:tc}", "Mon Jan  2 12:00:00.000249 2023") == 249


def test_named_field_in_log_line():
    result = parse.parse("[{when:ti}] {msg}", "[2023-01-01 10:00:00.000489] started")
    assert result["when"] == datetime(2023, 1, 1, 10, 0, 0, 489)
    assert result["msg"] == "started"


# --- pass-to-pass ------------------------------------------------------------------------

@pytest.mark.parametrize("fraction, expected", [
    ("5", 500000), ("05", 50000), ("123", 123000), ("1234", 123400), ("000250", 250), ("999999", 999999),
])
def test_short_and_exact_fractions(fraction, expected):
    assert micro("{:ti}", "2023-01-01T12:00:00." + fraction) == expected


def test_no_fraction_means_zero_microseconds():
    assert parse.parse("{:ti}", "2023-01-01T12:00:00")[0] == datetime(2023, 1, 1, 12, 0, 0)


def test_date_only():
    assert parse.parse("{:ti}", "2023-01-01")[0] == datetime(2023, 1, 1)


def test_utc_designator():
    value = parse.parse("{:ti}", "2023-01-01T12:00:00.5Z")[0]
    assert value.microsecond == 500000
    assert value.utcoffset() == timedelta(0)
    assert value.replace(tzinfo=timezone.utc) == datetime(2023, 1, 1, 12, 0, 0, 500000, timezone.utc)


def test_time_without_seconds():
    assert parse.parse("{:tt}", "07:45")[0] == time(7, 45)


def test_strftime_style_fraction():
    assert parse.parse("{:%H:%M:%S.%f}", "12:00:00.000249")[0] == time(12, 0, 0, 249)
