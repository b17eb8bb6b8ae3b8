"""`eve run ...` is parsed by an app holding the root options and `run` alone (typer
does not build the ~85 other commands for one turn): the same command, the same
options, the same help and exits as in the whole app."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import typer.main

from eve_build.cli.root import _run_app, app


def _described(command: Any) -> list[tuple[Any, ...]]:
    return [(type(param).__name__, param.name, tuple(param.opts),
             tuple(param.secondary_opts), param.required, repr(param.default),
             param.multiple, getattr(param, "help", None), type(param.type).__name__,
             param.type.name,
             param.metavar, param.is_eager) for param in command.params]


def test_run_alone_has_the_whole_apps_command_and_root_options() -> None:
    whole = typer.main.get_command(app)
    alone = typer.main.get_command(_run_app())

    assert list(alone.commands) == ["run"]  # type: ignore[attr-defined]
    assert type(alone) is type(whole)
    assert _described(alone) == _described(whole)
    run, full = alone.commands["run"], whole.commands["run"]  # type: ignore[attr-defined]
    assert _described(run) == _described(full)
    assert run.help == full.help


def _eve(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    environ = {**{k: v for k, v in os.environ.items() if k != "EVE_MODEL"},
               "EVE_HOME": str(tmp_path / "home"), "NO_COLOR": "1", "COLUMNS": "100"}
    return subprocess.run([sys.executable, "-m", "eve_build", *args], cwd=tmp_path,
                          env=environ, capture_output=True, text=True, timeout=120,
                          check=False)


def test_run_help_and_usage_errors_are_the_whole_apps(tmp_path: Path) -> None:
    alone = _eve(tmp_path, "run", "-h")
    whole = _eve(tmp_path, "-q", "run", "-h")  # `-q` first: the whole app parses it

    assert alone.returncode == whole.returncode == 0
    assert alone.stdout == whole.stdout
    assert "--max-requests" in alone.stdout and "--answer" in alone.stdout
    missing = _eve(tmp_path, "run")
    assert missing.returncode == 2
    assert "Missing argument 'TEXT'" in missing.stderr
    assert _eve(tmp_path, "-v", "run").stderr == missing.stderr
