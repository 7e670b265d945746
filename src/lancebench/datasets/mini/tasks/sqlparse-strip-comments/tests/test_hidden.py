"""Hidden tests: sqlparse.format(strip_comments=True) on input made only of comments."""

import pytest

import sqlparse


def strip(sql, **options):
    return sqlparse.format(sql, strip_comments=True, **options)


# --- fail-to-pass: every comment goes, even when nothing but comments is left ------------

def test_two_line_comments_leave_nothing():
    assert strip("-- first\n-- second\n").strip() == ""


def test_line_comments_ending_in_semicolons_leave_nothing():
    assert strip("--A;\n--B;").strip() == ""


def test_line_comment_then_block_comment_leave_nothing():
    assert strip("-- header\n/* block */").strip() == ""


def test_adjacent_block_comments_leave_nothing():
    assert strip("/* a *//* b */").strip() == ""


def test_three_line_comments_leave_nothing():
    assert strip("-- one\n-- two\n-- three\n").strip() == ""


def test_windows_line_endings_leave_nothing():
    assert strip("-- one\r\n-- two\r\n").strip() == ""


@pytest.mark.parametrize("count", [2, 4, 7])
def test_many_comment_lines_leave_no_comment_text(count):
    sql = "".join("-- note %d\n" % i for i in range(count))
    result = strip(sql)
    assert "--" not in result
    assert "note" not in result


# --- pass-to-pass: nearby behaviour that must not change ---------------------------------

def test_single_block_comment_alone_is_removed():
    assert strip("/* only */") == ""


def test_comments_before_a_statement_are_removed():
    assert strip("-- a\n-- b\nselect 1") == "select 1"


def test_trailing_comment_keeps_line_break():
    assert strip("select 1 -- x\nfrom t") == "select 1\nfrom t"


def test_adjacent_block_comments_after_code_are_removed():
    assert strip("select 1 /* x */ /* y */") == "select 1"


def test_block_comment_between_tokens_becomes_space():
    assert strip("SELECT 1/*bar*/ AS foo") == "SELECT 1 AS foo"


def test_optimizer_hints_are_kept():
    assert strip("SELECT /*+ FULL(t) */ * FROM t") == "SELECT /*+ FULL(t) */ * FROM t"
    result = strip("--+hint\n-- a\n-- b")
    assert "--+hint" in result
    assert "-- a" not in result and "-- b" not in result


def test_comments_after_last_statement_are_removed():
    result = strip("select 1;\n-- a\n-- b\n")
    assert result.startswith("select 1;")
    assert "--" not in result


def test_comments_kept_without_the_option():
    sql = "-- first\n-- second\n"
    assert sqlparse.format(sql) == sql
    assert sqlparse.format(sql, strip_comments=False) == sql


def test_parse_of_comment_only_input_round_trips():
    sql = "-- first\n/* second */"
    assert str(sqlparse.parse(sql)[0]) == sql


def test_input_made_only_of_a_hint_is_kept():
    assert strip("--+ hint") == "--+ hint"
    assert strip("/*+ INDEX(t i) */") == "/*+ INDEX(t i) */"
