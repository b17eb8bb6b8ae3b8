"""Cron parsing and next runs through cronsim: 5 fields, macros, impossible dates."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from eve_build.cron import derive_next_runs, find_cron_problems

START = datetime(2026, 12, 1, 10, 7, 30, tzinfo=UTC)  # a Tuesday


@pytest.mark.parametrize(
    "expression",
    ["*/15 * * * *", "0 9 * * 1", "0 0 1 jan *", "5,10 8-18/2 * * mon-fri", "0 0 * * 7",
     "0 0 29 2 *", "@hourly", "@daily", "@weekly", "@monthly", "@yearly", "@annually",
     "@midnight", " @HOURLY "],
)
def test_valid(expression: str) -> None:
    assert find_cron_problems(expression) == []


@pytest.mark.parametrize(
    ("expression", "fragment"),
    [
        ("* * * *", "has 4 fields"),
        ("0 * * * * *", "has 6 fields"),
        ("61 * * * *", "minute `61` is not a valid"),
        ("* 24 * * *", "hour `24` is not a valid"),
        ("* * 0 * *", "day-of-month `0` is not valid"),
        ("*/0 * * * *", "minute `*/0`"),
        ("5-1 * * * *", "minute `5-1`"),
        ("x * * * *", "minute `x`"),
        ("0 0 31 2 *", "day-of-month `31` is not valid, or never happens in month `2`"),
        ("0 0 30 2 *", "never happens in month `2`"),
        ("0 0 31 4,6 *", "never happens in month `4,6`"),
        ("@reboot", "not a known macro"),
        ("@fortnightly", "not a known macro"),
        (None, "must be a string"),
    ],
)
def test_invalid(expression: object, fragment: str) -> None:
    problems = find_cron_problems(expression)
    assert any(fragment in p for p in problems), problems


def test_next_runs_are_strictly_after_and_in_order() -> None:
    assert derive_next_runs("*/15 * * * *", START, 3) == [
        datetime(2026, 12, 1, 10, 15, tzinfo=UTC), datetime(2026, 12, 1, 10, 30, tzinfo=UTC),
        datetime(2026, 12, 1, 10, 45, tzinfo=UTC)]
    on_the_dot = datetime(2026, 12, 1, 10, 15, tzinfo=UTC)
    assert derive_next_runs("*/15 * * * *", on_the_dot) == [
        datetime(2026, 12, 1, 10, 30, tzinfo=UTC)]


def test_macros_expand_to_their_five_fields() -> None:
    assert derive_next_runs("@hourly", START, 2) == derive_next_runs("0 * * * *", START, 2)
    assert derive_next_runs("@weekly", START) == [datetime(2026, 12, 6, tzinfo=UTC)]  # Sunday


def test_a_date_that_happens_only_in_leap_years_is_found() -> None:
    assert derive_next_runs("0 0 29 2 *", START) == [datetime(2028, 2, 29, tzinfo=UTC)]


def test_an_invalid_expression_raises_value_error() -> None:
    with pytest.raises(ValueError, match="never happens"):
        derive_next_runs("0 0 31 2 *", START)
