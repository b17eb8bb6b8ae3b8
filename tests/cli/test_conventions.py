"""Every registered `eve` command, discovered from the app: a schema, `--json`, `-h`, clean
help, and exit 2 for usage errors before anything is printed or created."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from eve_build import __version__
from eve_build.cli import app
from eve_build.cli.conventions import NO_JSON, schema_name, walk_commands
from eve_build.schemas import list_schemas


def _commands() -> dict[tuple[str, ...], Any]:
    return dict(walk_commands(typer.main.get_command(app)))


COMMANDS = _commands()
IDS = [" ".join(path) for path in COMMANDS]


def _option_names(command: Any) -> set[str]:
    return {name for param in command.params for name in param.opts}


def _required_arguments(command: Any) -> list[str]:
    """Placeholder values for required arguments, so only the option under test is wrong."""
    return ["x" for p in command.params if p.param_type_name == "argument" and p.required]


def test_the_walk_finds_the_known_commands() -> None:
    assert {("build",), ("info",), ("call",), ("dev",), ("extension", "build"),
            ("extension", "init"), ("extension", "pack"), ("state", "migrate")} <= set(COMMANDS)


def test_every_schema_belongs_to_a_command() -> None:
    expected = {schema_name(path) for path in COMMANDS} | {"_envelope.json"}
    assert set(list_schemas()) <= expected


@pytest.mark.parametrize("path", COMMANDS, ids=IDS)
def test_has_a_schema_and_json(path: tuple[str, ...]) -> None:
    if path in NO_JSON:
        assert "--json" not in _option_names(COMMANDS[path])
        assert schema_name(path) not in list_schemas()
        return
    assert schema_name(path) in list_schemas(), f"add eve_build/schemas/{schema_name(path)}"
    assert "--json" in _option_names(COMMANDS[path])


@pytest.mark.parametrize("path", COMMANDS, ids=IDS)
def test_short_help_and_clean_help(path: tuple[str, ...]) -> None:
    result = CliRunner().invoke(app, [*path, "-h"])

    assert result.exit_code == 0, result.output
    assert f"Usage: eve {' '.join(path)}" in result.stdout
    usage = next(line for line in result.stdout.splitlines() if "Usage:" in line)
    assert "{" not in usage
    for noise in ("<bool>", "<str>", "<path>", "<int>"):
        assert noise not in result.stdout


@pytest.mark.parametrize("path", COMMANDS, ids=IDS)
def test_an_unknown_option_exits_2_and_prints_nothing_on_stdout(path: tuple[str, ...],
                                                                tmp_path: Path,
                                                                monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, [*path, *_required_arguments(COMMANDS[path]),
                                      "--no-such-option"])

    assert result.exit_code == 2
    assert result.stdout == ""
    assert "No such option" in result.stderr
    assert "Traceback" not in result.output
    assert list(tmp_path.iterdir()) == []


PATH_COMMANDS = [p for p, c in COMMANDS.items() if "--path" in _option_names(c)]


@pytest.mark.parametrize("path", PATH_COMMANDS, ids=[" ".join(p) for p in PATH_COMMANDS])
def test_a_missing_path_folder_exits_2_before_anything_happens(path: tuple[str, ...],
                                                               tmp_path: Path,
                                                               monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    arguments = _required_arguments(COMMANDS[path])
    result = CliRunner().invoke(app, [*path, *arguments, "--path", "missing"])

    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert "does not exist" in result.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", ["Bad Name", "json", "-x"])
def test_a_bad_extension_name_exits_2_before_anything_is_created(name: str, tmp_path: Path,
                                                                 monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["extension", "init", "--no-install", "--no-git", "--",
                                      name])

    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert "Creating" not in result.output
    assert list(tmp_path.iterdir()) == []


def test_version_long_and_short() -> None:
    for flag in ("--version", "-V"):
        result = CliRunner().invoke(app, [flag])
        assert (result.exit_code, result.stdout) == (0, f"eve-build {__version__}\n")


def test_quiet_and_verbose_together_are_a_usage_error() -> None:
    result = CliRunner().invoke(app, ["-q", "-v", "info"])

    assert result.exit_code == 2
    assert result.stdout == ""


def test_root_help_offers_completion_and_output_levels() -> None:
    result = CliRunner().invoke(app, ["-h"])

    assert result.exit_code == 0
    for option in ("--install-completion", "--show-completion", "--quiet", "--verbose",
                   "--version", "-h"):
        assert option in result.stdout
    assert "<bool>" not in result.stdout
