"""Every numeric setting is checked against its range (issue 23, items 12 and 22): real
`eve` processes with timeouts that bound nothing (1e308), overflow a timer (1e10) or are
no number (nan), as environment variables and as options."""

from __future__ import annotations

from pathlib import Path

import pytest

from eve_build.settings import NUMERIC_SETTINGS, SettingError, parse_setting
from tests.reliability.agents import make_misbehaving_agent, run_eve


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_misbehaving_agent(tmp_path_factory.mktemp("settings") / "app")


@pytest.mark.parametrize(("variable", "value"), [
    ("EVE_TOOL_TIMEOUT", "1e308"), ("EVE_TOOL_TIMEOUT", "1e10"), ("EVE_TOOL_TIMEOUT", "nan"),
    ("EVE_TOOL_TIMEOUT", "-1"), ("EVE_SCHEDULE_TIMEOUT", "inf"),
])
def test_an_out_of_range_variable_stops_the_load_with_a_diagnostic_naming_it(
    app: Path, variable: str, value: str,
) -> None:
    done = run_eve("call", "hang_default", "--path", str(app), cwd=app.parent,
                   env={variable: value})
    err = done.stderr.decode()

    assert done.returncode == 1, err
    assert f"error setting/value-invalid: the environment variable {variable} must be a " \
           f"number of seconds from 0.001 to 604800 (7 days), not '{value}'" in err
    assert f"hint: set it as `{variable}=" in err
    assert "Traceback" not in err and "OverflowError" not in err
    assert done.stdout == b""


def test_a_variable_in_range_bounds_the_call(app: Path) -> None:
    done = run_eve("call", "hang_default", "--path", str(app), cwd=app.parent,
                   env={"EVE_TOOL_TIMEOUT": "0.3"})
    assert done.returncode == 1
    assert "did not finish within its 0.3 s timeout" in done.stderr.decode()


@pytest.mark.parametrize(("command", "option", "value"), [
    ("serve", "--channel-timeout", "nan"), ("serve", "--channel-timeout", "1e308"),
    ("serve", "--max-body", "0"), ("serve", "--max-body", "2GiB"),
    ("serve", "--max-body", "1.5"), ("serve", "--max-body", "lots"),
    ("dev", "--channel-timeout", "inf"), ("connections", "--timeout", "nan"),
])
def test_an_out_of_range_option_is_a_usage_error_naming_it(
    app: Path, command: str, option: str, value: str,
) -> None:
    done = run_eve(command, "--path", str(app), option, value, cwd=app.parent,
                   env={"NO_COLOR": "1", "COLUMNS": "200"})
    err = done.stderr.decode()

    assert done.returncode == 2, err
    assert f"the option `{option}` must be" in err
    assert f"not '{value}'" in err or "not " in err
    assert "Traceback" not in err
    assert "serving on" not in done.stdout.decode()


def test_the_import_budget_variable_is_checked_against_the_same_table(app: Path) -> None:
    done = run_eve("build", "--path", str(app), cwd=app.parent,
                   env={"EVE_IMPORT_TIMEOUT": "1e10"})
    err = done.stderr.decode()
    assert done.returncode == 1
    assert "error engine/budget-invalid: the environment variable EVE_IMPORT_TIMEOUT must be " \
           "a number of seconds from 0.001 to 604800 (7 days), not '1e10'" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(("raw", "expected"), [
    ("2MiB", 2 * 1024 * 1024), ("512 KiB", 512 * 1024), ("1048576", 1048576), (4096, 4096),
])
def test_sizes_take_iec_suffixes(raw: str | int, expected: int) -> None:
    assert parse_setting("--max-body", raw) == expected


@pytest.mark.parametrize("raw", [True, 1e308, float("nan"), "1e3MiB", "-5", 2**70])
def test_what_cannot_be_meant_is_refused(raw: object) -> None:
    with pytest.raises(SettingError) as caught:
        parse_setting("--max-body", raw)  # type: ignore[arg-type]
    assert caught.value.exit_code == 2
    assert caught.value.diagnostics[0].code == NUMERIC_SETTINGS["--max-body"].code
