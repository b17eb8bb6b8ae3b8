"""Hypothesis over numeric settings (issue 23, item 6): any text or number given to any row of
the settings table is either a finite value inside its range, safe for every timer the host
arms, or a SettingError whose diagnostic names the setting; never another exception."""

from __future__ import annotations

import math
import threading

from hypothesis import example, given
from hypothesis import strategies as st

from eve_build.runtime.tools import TIMEOUT_VARIABLE, TOOL_TIMEOUT, derive_timeout
from eve_build.sdk import define_tool
from eve_build.settings import NUMERIC_SETTINGS, SettingError, find_setting_problems, parse_setting

NAMES = st.sampled_from(sorted(NUMERIC_SETTINGS))
NUMBERS = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(),
                    st.integers(min_value=-(2**80), max_value=2**80), st.booleans())
TEXTS = st.one_of(
    st.text(max_size=40),
    NUMBERS.map(str),
    st.builds(lambda n, unit: f"{n}{unit}", st.floats(allow_nan=True), st.sampled_from(
        ["", "B", "KiB", "MiB", "GiB", "kib", " MiB", "e5", "TiB", "s"])),
)


@given(NAMES, st.one_of(NUMBERS, TEXTS))
@example("EVE_TOOL_TIMEOUT", "1e308")
@example("EVE_TOOL_TIMEOUT", "1e10")
@example("--channel-timeout", float("nan"))
@example("--max-body", "1e3MiB")
def test_any_value_of_any_setting_is_in_range_or_a_named_diagnostic(
    name: str, raw: object,
) -> None:
    setting = NUMERIC_SETTINGS[name]
    try:
        value = parse_setting(name, raw)  # type: ignore[arg-type]
    except SettingError as exc:
        [diagnostic] = exc.diagnostics
        assert diagnostic.code == setting.code
        assert name in diagnostic.message and diagnostic.hint
        assert exc.exit_code == (2 if setting.given_as == "option" else 1)
        return
    assert math.isfinite(value) and setting.low <= value <= setting.high
    assert value <= threading.TIMEOUT_MAX  # no timer of the host can overflow on it
    if setting.unit == "bytes":
        assert value == int(value)


@given(st.one_of(TEXTS, NUMBERS.map(str)))
@example("1e308")
@example("nan")
def test_the_tool_timeout_variable_never_fails_a_call_and_always_bounds_it(raw: str) -> None:
    environ = {TIMEOUT_VARIABLE: raw}
    problems = find_setting_problems([TIMEOUT_VARIABLE], environ)
    seconds = derive_timeout(None, environ)
    assert 0 < seconds <= NUMERIC_SETTINGS[TIMEOUT_VARIABLE].high
    if problems:  # refused at load; a call made anyway falls back to the default
        assert seconds == TOOL_TIMEOUT
        assert TIMEOUT_VARIABLE in problems[0].message


@given(st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(1, 2**70)))
def test_a_tools_own_timeout_never_overflows_a_timer(timeout: float) -> None:
    seconds = derive_timeout(define_tool(description="x", timeout=timeout), {})
    assert 0 < seconds <= threading.TIMEOUT_MAX
