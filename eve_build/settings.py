"""Every numeric setting a user can give (timeouts, budgets, limits): one table, one parser.

    seconds = parse_setting("EVE_TOOL_TIMEOUT", os.environ["EVE_TOOL_TIMEOUT"])
    limit = parse_setting("--max-body", "2MiB")            # 2097152.0

A value is refused (SettingError, a Diagnostic naming the setting, its range and an
example) unless it is a finite number inside the setting's range: `nan`, `inf`,
`1e308` (which bounds nothing) and `1e10` (past what the OS's timers take) never
reach a timer. Sizes take an IEC suffix (`512KiB`, `1MiB`, `1GiB`). The ranges
are wide on purpose: they exist to refuse what cannot be meant, not to second-guess
a slow tool (docs/decisions.md, "Numeric settings").
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

from eve_build.diagnostics import Diagnostic, error
from eve_build.errors import DiagnosticsError

WEEK = 7 * 24 * 3600.0
GIB = 1024**3


@dataclass(frozen=True)
class NumericSetting:
    """One setting: its name as the user writes it, where it is given, its unit and range."""

    name: str
    given_as: Literal["environment variable", "option", "pyproject key", "argument"]
    unit: Literal["seconds", "bytes", "count"]
    low: float
    high: float
    example: str
    code: str = "setting/value-invalid"

    def describe(self) -> str:
        shown = self.name if self.given_as == "environment variable" else f"`{self.name}`"
        return f"the {self.given_as} {shown}"


NUMERIC_SETTINGS: dict[str, NumericSetting] = {s.name: s for s in (
    NumericSetting("EVE_TOOL_TIMEOUT", "environment variable", "seconds", 0.001, WEEK, "300"),
    NumericSetting("EVE_SCHEDULE_TIMEOUT", "environment variable", "seconds", 0.001, WEEK,
                   "3600"),
    NumericSetting("EVE_IMPORT_TIMEOUT", "environment variable", "seconds", 0.001, WEEK, "30",
                   code="engine/budget-invalid"),
    NumericSetting("tool.eve.extension.import-timeout", "pyproject key", "seconds", 0.001,
                   WEEK, "30", code="engine/budget-invalid"),
    NumericSetting("EVE_MODEL_TIMEOUT", "environment variable", "seconds", 0.001, WEEK,
                   "120"),
    NumericSetting("EVE_MODEL_RETRIES", "environment variable", "count", 0, 100, "2"),
    # 0: the model's server answers only whole chat completions (eve_build.session.nostream)
    NumericSetting("EVE_MODEL_STREAM", "environment variable", "count", 0, 1, "0"),
    NumericSetting("EVE_TURN_TIMEOUT", "environment variable", "seconds", 0.001, WEEK, "600"),
    NumericSetting("EVE_INPUT_TIMEOUT", "environment variable", "seconds", 0.001, WEEK, "300"),
    NumericSetting("EVE_CONNECTION_TIMEOUT", "environment variable", "seconds", 0.001, 3600,
                   "10"),
    NumericSetting("--channel-timeout", "option", "seconds", 0.001, WEEK, "30"),
    NumericSetting("--max-body", "option", "bytes", 1, GIB, "1MiB"),
    NumericSetting("--timeout", "option", "seconds", 0.1, 3600, "5"),
    NumericSetting("define_tool(timeout=...)", "argument", "seconds", 0.001, WEEK, "300"),
)}
"""Data: every numeric setting. A new timeout, budget or limit gets a row here."""

_SIZE = re.compile(r"\s*([0-9]+(?:\.[0-9]+)?)\s*(B|KiB|MiB|GiB)?\s*", re.IGNORECASE)
_UNITS = {"": 1, "b": 1, "kib": 1024, "mib": 1024**2, "gib": GIB}


class SettingError(DiagnosticsError, ValueError):
    """A numeric setting is not a number in its range; exit 2 when it is an option."""

    def __init__(self, title: str, diagnostics: list[Diagnostic], exit_code: int) -> None:
        super().__init__(title, diagnostics)
        self.exit_code = exit_code


def parse_setting(name: str, raw: str | float | int) -> float:
    """The value of setting `name` from `raw`: text (an environment variable, a command
    line) or a number (an API argument). Raises SettingError."""
    setting = NUMERIC_SETTINGS[name]
    value = _number(raw, setting)
    if value is None or not setting.low <= value <= setting.high:
        found = [diagnose_setting(setting, raw)]  # SettingError: exit 2 for an option
        raise SettingError(f"{setting.describe()} is invalid", found,
                           exit_code=2 if setting.given_as == "option" else 1)
    return value


def read_setting(name: str, environ: Mapping[str, str], default: float) -> float:
    """An environment variable's value, `default` when it is unset, empty or invalid (the
    loader refused an invalid one already: see find_setting_problems)."""
    raw = environ.get(name, "")
    if raw == "":
        return default
    try:
        return parse_setting(name, raw)
    except SettingError:
        return default


def find_setting_problems(names: Iterable[str], environ: Mapping[str, str]) -> list[Diagnostic]:
    """A diagnostic for each of these environment variables set to an invalid value."""
    found: list[Diagnostic] = []
    for name in names:
        raw = environ.get(name, "")
        if raw != "" and not _in_range(raw, NUMERIC_SETTINGS[name]):
            found.append(diagnose_setting(NUMERIC_SETTINGS[name], raw))
    return found


def diagnose_setting(setting: NumericSetting, raw: object, *, file: str = "",
                     line: int | None = None) -> Diagnostic:
    """The diagnostic of an invalid value of `setting`."""
    shown = repr(raw) if len(repr(raw)) <= 40 else repr(raw)[:40] + "..."
    unit = ("a number of seconds" if setting.unit == "seconds" else
            "a whole number" if setting.unit == "count" else
            "a size in bytes (or with KiB, MiB, GiB)")
    fix = (f"set it as `{setting.name}={setting.example}`, or unset it to use the default"
           if setting.given_as == "environment variable" else
           f"pass `{setting.name} {setting.example}`" if setting.given_as == "option" else
           f"write it as `{setting.name.rsplit('.', 1)[-1]} = {setting.example}`"
           if setting.given_as == "pyproject key" else f"use `{setting.name}` with "
           f"{setting.example}")
    return error(setting.code, file, f"{setting.describe()} must be {unit} from "
                 f"{_show(setting.low, setting)} to {_show(setting.high, setting)}, not "
                 f"{shown}", fix, line=line)


def _show(value: float, setting: NumericSetting) -> str:
    """`604800 (7 days)`, `1 GiB`: a bound as a person reads it."""
    if setting.unit == "bytes":
        for unit, size in (("GiB", GIB), ("MiB", 1024**2), ("KiB", 1024)):
            if value >= size and value % size == 0:
                return f"{value / size:g} {unit}"
        return f"{value:g} byte" + ("" if value == 1 else "s")
    days = f" ({value / 86400:g} days)" if value >= 86400 and value % 86400 == 0 else ""
    return f"{value:g}{days}"


def _in_range(raw: object, setting: NumericSetting) -> bool:
    value = _number(raw, setting)
    return value is not None and setting.low <= value <= setting.high


def _number(raw: object, setting: NumericSetting) -> float | None:
    """A finite float from `raw`, or None (bools and other types are no numbers)."""
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int | float):
        value = float(raw) if not isinstance(raw, int) or abs(raw) < 2**63 else math.inf
    elif isinstance(raw, str) and setting.unit == "bytes":
        found = _SIZE.fullmatch(raw)
        if found is None:
            return None
        value = float(found[1]) * _UNITS[(found[2] or "").lower()]
    elif isinstance(raw, str) and setting.unit == "count":
        text = raw.strip()
        if not (text.isascii() and text.isdigit()):  # not `²`, which int() refuses
            return None
        value = float(text)
    elif isinstance(raw, str):
        try:
            value = float(raw.strip())
        except ValueError:
            return None
    else:
        return None
    if not math.isfinite(value):
        return None
    if setting.unit in ("bytes", "count") and value != int(value):
        return None
    return value
