from __future__ import annotations

import pytest

from eve_build.cron import find_cron_problems


@pytest.mark.parametrize(
    "expression",
    ["*/15 * * * *", "0 9 * * 1", "0 0 1 jan *", "5,10 8-18/2 * * mon-fri", "0 0 * * 7"],
)
def test_valid(expression: str) -> None:
    assert find_cron_problems(expression) == []


@pytest.mark.parametrize(
    ("expression", "fragment"),
    [
        ("* * * *", "has 4 fields"),
        ("61 * * * *", "61 is outside 0-59"),
        ("* 24 * * *", "24 is outside 0-23"),
        ("* * 0 * *", "0 is outside 1-31"),
        ("*/0 * * * *", "step must be at least 1"),
        ("5-1 * * * *", "runs backwards"),
        ("x * * * *", "is not a number"),
        (None, "must be a string"),
    ],
)
def test_invalid(expression: object, fragment: str) -> None:
    problems = find_cron_problems(expression)
    assert any(fragment in p for p in problems), problems
