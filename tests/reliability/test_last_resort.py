"""The last-resort handler: an unexpected exception in any command is a short diagnostic."""

from __future__ import annotations

import json
import platform
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from eve_build.cli import app
from eve_build.cli.guard import guard
from tests.reliability.agents import run_eve


def _every_command(typer_app: typer.Typer) -> list[object]:
    found: list[object] = [c.callback for c in typer_app.registered_commands]
    for group in typer_app.registered_groups:
        assert group.typer_instance is not None
        found.extend(_every_command(group.typer_instance))
    return found


def test_every_command_is_guarded() -> None:
    callbacks = _every_command(app)
    assert len(callbacks) >= 7
    assert all(getattr(c, "__eve_guarded__", False) for c in callbacks)


def test_an_unexpected_error_is_an_internal_diagnostic(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise KeyError("a bug")

    monkeypatch.setattr("eve_build.consumer.info.describe_agent", broken)
    result = CliRunner().invoke(app, ["info", "--path", str(tmp_path)])
    assert result.exit_code == 1
    assert result.stdout == ""
    assert "Traceback" not in result.output
    first, hint = result.stderr.splitlines()
    assert first.startswith("error internal/unexpected: eve-build stopped on an unexpected "
                            "error: KeyError: 'a bug' at ")
    assert " at eve_build/cli/agent.py:" in first
    assert first.endswith("(eve-build 0.1.0, Python " + platform.python_version() + ")")
    assert hint == ("  hint: this is a bug in eve-build, not in your project: please report it "
                    "with this message; set EVE_DEBUG=1 to add the full traceback")


def test_with_json_the_internal_diagnostic_is_the_one_document(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise ZeroDivisionError("oops")

    monkeypatch.setattr("eve_build.consumer.info.describe_agent", broken)
    result = CliRunner().invoke(app, ["info", "--json", "--path", str(tmp_path)])
    assert result.exit_code == 1
    payload = json.loads(result.stdout)
    assert payload["status"] == "failed"
    assert [d["code"] for d in payload["diagnostics"]["items"]] == ["internal/unexpected"]
    assert payload["error"]["message"].startswith("eve-build stopped on an unexpected error")


def test_debug_adds_the_traceback_on_request(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken() -> None:
        raise RuntimeError("deep")

    monkeypatch.setenv("EVE_DEBUG", "1")
    guarded = typer.Typer()
    guarded.command()(guard(broken))
    result = CliRunner().invoke(guarded, [])
    assert result.exit_code == 1
    assert "Traceback (most recent call last)" in result.stderr
    assert "RuntimeError: deep" in result.stderr


def test_usage_errors_and_exits_pass_through(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["call"])
    assert result.exit_code == 2
    assert "internal/unexpected" not in result.output


def test_a_path_with_a_nul_byte_is_no_traceback(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["state", "migrate", "snap\x00shot.json",
                                      "--path", str(tmp_path)])
    assert result.exit_code in (1, 2)
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_an_over_long_extension_name_is_a_usage_error(tmp_path: Path) -> None:
    done = run_eve("extension", "init", "a" * 300, "--no-install", "--no-git", cwd=tmp_path)
    assert done.returncode == 2
    assert b"is not a valid extension name: it is 300 characters long; at most 64 are allowed" \
        in done.stderr
    assert b"Traceback" not in done.stderr
    assert list(tmp_path.iterdir()) == []
