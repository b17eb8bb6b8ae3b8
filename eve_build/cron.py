"""Five-field cron expressions: minute hour day-of-month month day-of-week."""

from __future__ import annotations

import re

FIELDS: tuple[tuple[str, int, int], ...] = (
    ("minute", 0, 59),
    ("hour", 0, 23),
    ("day of month", 1, 31),
    ("month", 1, 12),
    ("day of week", 0, 7),
)
NAMES = {
    3: {m: i + 1 for i, m in enumerate(
        ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"])},
    4: {d: i for i, d in enumerate(["sun", "mon", "tue", "wed", "thu", "fri", "sat"])},
}
_ITEM = re.compile(r"^(\*|[a-z0-9]+(?:-[a-z0-9]+)?)(?:/(\d+))?$")


def find_cron_problems(expression: object) -> list[str]:
    """What is wrong with a cron expression (empty when it is valid)."""
    if not isinstance(expression, str):
        return ["cron must be a string of 5 fields"]
    fields = expression.split()
    if len(fields) != len(FIELDS):
        return [f"`{expression}` has {len(fields)} fields; cron takes 5: "
                "minute hour day-of-month month day-of-week"]
    problems: list[str] = []
    for index, (text, (label, low, high)) in enumerate(zip(fields, FIELDS, strict=True)):
        for item in text.lower().split(","):
            problem = _check_item(item, index, low, high)
            if problem:
                problems.append(f"{label} `{text}`: {problem}")
                break
    return problems


def _check_item(item: str, index: int, low: int, high: int) -> str | None:
    match = _ITEM.match(item)
    if match is None:
        return f"`{item}` is not a value, range, list or step"
    base, step = match.group(1), match.group(2)
    if step is not None and int(step) == 0:
        return "a step must be at least 1"
    if base == "*":
        return None
    bounds = base.split("-")
    values: list[int] = []
    for part in bounds:
        value = NAMES.get(index, {}).get(part)
        if value is None:
            if not part.isdigit():
                return f"`{part}` is not a number"
            value = int(part)
        if not low <= value <= high:
            return f"{value} is outside {low}-{high}"
        values.append(value)
    if len(values) == 2 and values[0] > values[1]:
        return f"the range `{base}` runs backwards"
    return None
