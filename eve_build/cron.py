"""Cron expressions, parsed and stepped by cronsim (a maintained library).

Five fields (minute hour day-of-month month day-of-week) or one of the macros
below. cronsim rejects dates that can never happen (`0 0 31 2 *`), so such an
expression is an error at extension build, not a schedule that silently never
fires. Times are computed in the time zone of the datetime given (the server
uses its local zone; see docs/serving.md).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from itertools import islice

from cronsim import CronSim, CronSimError

MACROS: dict[str, str] = {
    "@yearly": "0 0 1 1 *",
    "@annually": "0 0 1 1 *",
    "@monthly": "0 0 1 * *",
    "@weekly": "0 0 * * 0",
    "@daily": "0 0 * * *",
    "@midnight": "0 0 * * *",
    "@hourly": "0 * * * *",
}
"""The `@name` shorthands cron accepts (`@reboot` has no meaning for a schedule)."""

FIELD_NAMES = ("minute", "hour", "day-of-month", "month", "day-of-week")
_PROBE = datetime(2000, 1, 1)  # any instant: cronsim checks the expression when it parses


def derive_expression(expression: str) -> str:
    """The five fields an expression stands for (macros expanded)."""
    text = expression.strip()
    return MACROS.get(text.lower(), text)


def find_cron_problems(expression: object) -> list[str]:
    """What is wrong with a cron expression (empty when it is valid)."""
    if not isinstance(expression, str):
        return ["cron must be a string of 5 fields (or a macro such as `@hourly`)"]
    text = derive_expression(expression)
    if text.startswith("@"):
        return [f"`{expression}` is not a known macro; use one of {', '.join(MACROS)}"]
    fields = text.split()
    if len(fields) != len(FIELD_NAMES):
        return [f"`{expression}` has {len(fields)} fields; cron takes 5: "
                "minute hour day-of-month month day-of-week"]
    try:
        CronSim(text, _PROBE)
    except CronSimError as exc:
        return [_explain(str(exc), fields)]
    return []


def derive_next_runs(expression: str, after: datetime, count: int = 1) -> list[datetime]:
    """The next `count` times strictly after `after` (raises ValueError when invalid)."""
    return list(islice(iterate_runs(expression, after), count))


def iterate_runs(expression: str, after: datetime) -> Iterator[datetime]:
    """Every run time strictly after `after`, in order (raises ValueError when invalid)."""
    problems = find_cron_problems(expression)
    if problems:
        raise ValueError(problems[0])
    return iter(CronSim(derive_expression(expression), after.replace(second=0, microsecond=0)))


def _explain(message: str, fields: list[str]) -> str:
    """cronsim says `Bad day-of-month`; name the field and what was written in it."""
    for index, name in enumerate(FIELD_NAMES):
        if message.lower() == f"bad {name}":
            if index == 2:
                return (f"day-of-month `{fields[2]}` is not valid, or never happens in "
                        f"month `{fields[3]}`")
            return f"{name} `{fields[index]}` is not a valid value, range, list or step"
    return message
