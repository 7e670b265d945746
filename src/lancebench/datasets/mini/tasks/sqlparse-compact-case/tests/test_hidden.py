"""Hidden tests: the `compact` formatting option keeps CASE expressions on one line."""

import pytest
import sqlparse
from sqlparse.exceptions import SQLParseError

SHORT = "select case when a = 1 then 'x' else 'y' end from t"
LISTED = "select a, case when a = 1 then 'x' when a = 2 then 'y' else 'z' end as c, b from t where x = 1"
NESTED = "select case when a=1 then case when b=2 then 'p' else 'q' end else 'r' end from t"


def fmt(sql, **options):
    return sqlparse.format(sql, reindent=True, **options)


# --- fail-to-pass ------------------------------------------------------------------------

def test_short_case_stays_on_one_line():
    assert fmt(SHORT, compact=True) == "select case when a = 1 then 'x' else 'y' end\nfrom t"


def test_case_in_a_column_list():
    assert fmt(LISTED, compact=True) == "\n".join([
        "select a,",
        "       case when a = 1 then 'x' when a = 2 then 'y' else 'z' end as c,",
        "       b",
        "from t",
        "where x = 1",
    ])


def test_nested_case_stays_on_one_line():
    assert fmt(NESTED, compact=True) == (
        "select case when a=1 then case when b=2 then 'p' else 'q' end else 'r' end\nfrom t")


def test_compact_must_be_a_boolean():
    with pytest.raises(SQLParseError, match="compact requires a boolean value"):
        sqlparse.format(SHORT, reindent=True, compact="yes")


def test_compact_is_documented():
    import pathlib
    api = pathlib.Path("docs/source/api.rst").read_text()
    assert "``compact``" in api


# --- pass-to-pass ------------------------------------------------------------------------

def test_default_output_unchanged():
    assert fmt(SHORT) == "\n".join([
        "select case",
        "           when a = 1 then 'x'",
        "           else 'y'",
        "       end",
        "from t",
    ])


def test_compact_false_is_the_default():
    assert fmt(LISTED, compact=False) == fmt(LISTED)


def test_statements_without_case_unchanged():
    sql = "select a, b from t where x = 1 order by a"
    assert fmt(sql, compact=True) == fmt(sql) == "select a,\n       b\nfrom t\nwhere x = 1\norder by a"


def test_other_boolean_options_still_checked():
    with pytest.raises(SQLParseError, match="comma_first requires a boolean value"):
        sqlparse.format(SHORT, reindent=True, comma_first="yes")
