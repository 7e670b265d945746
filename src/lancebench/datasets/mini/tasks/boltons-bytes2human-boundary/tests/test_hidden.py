"""Hidden tests: bytes2human at exact powers of 1024 (F2P) and nearby behaviour (P2P)."""

from boltons.strutils import bytes2human


# ---- fail-to-pass: values that are exactly one unit -----------------------------------


def test_one_kibibyte():
    assert bytes2human(1024) == "1K"


def test_exact_powers_roll_over():
    assert [bytes2human(1024**i) for i in range(1, 8)] == [
        "1K",
        "1M",
        "1G",
        "1T",
        "1P",
        "1E",
        "1Z",
    ]


def test_exact_power_with_digits():
    assert bytes2human(1024, 2) == "1.00K"
    assert bytes2human(1024**3, 1) == "1.0G"


def test_negative_exact_power():
    assert bytes2human(-1024) == "-1K"
    assert bytes2human(-(1024**2), 1) == "-1.0M"


# ---- pass-to-pass: everything away from the exact boundaries --------------------------


def test_zero():
    assert bytes2human(0) == "0B"
    assert bytes2human(0, 2) == "0.00B"


def test_just_below_boundary_stays_in_smaller_unit():
    assert bytes2human(1) == "1B"
    assert bytes2human(1023) == "1023B"
    assert bytes2human(1023, 2) == "1023.00B"


def test_just_above_boundary():
    assert bytes2human(1025, 2) == "1.00K"
    assert bytes2human(1536, 1) == "1.5K"
    assert bytes2human(2048) == "2K"
    assert bytes2human(3 * 1024**2) == "3M"


def test_mid_range_values():
    assert bytes2human(128991) == "126K"
    assert bytes2human(128991, 2) == "125.97K"
    assert bytes2human(100001221) == "95M"


def test_negative_values_away_from_boundary():
    assert bytes2human(-1023) == "-1023B"
    assert bytes2human(-2048) == "-2K"
    assert bytes2human(-1536, 1) == "-1.5K"


def test_float_input():
    assert bytes2human(1536.0, 1) == "1.5K"
    assert bytes2human(512.5, 1) == "512.5B"
