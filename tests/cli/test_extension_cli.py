"""`eve extension build` through the CLI, and a fast, lazy `eve --help`."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from typer.testing import CliRunner

from eve_build.cli import app


def test_build_prints_what_was_built(copy_fixture: Callable[[str], Path],
                                     monkeypatch) -> None:  # type: ignore[no-untyped-def]
    root = copy_fixture("extensions/gizmo")
    monkeypatch.chdir(root)

    result = CliRunner().invoke(app, ["extension", "build"])

    assert result.exit_code == 0, result.output
    assert result.output == "Built gizmo 1.0.0 into build/eve/gizmo (10 files, 1 tool)\n"
    assert (root / "build" / "eve" / "gizmo" / "extension" / "_manifest.json").is_file()


def test_build_json(copy_fixture: Callable[[str], Path]) -> None:
    root = copy_fixture("extensions/gizmo")

    result = CliRunner().invoke(app, ["extension", "build", "--path", str(root), "--json"])

    payload = json.loads(result.stdout)
    assert payload["status"] == "built"
    assert payload["requires"] == {"extension": 1, "hook": 1, "instructions": 1, "tool": 1}
    assert "gizmo/tools/__init__.py" in payload["files"]


def test_missing_pyproject_is_a_diagnostic(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["extension", "build", "--path", str(tmp_path)])

    assert result.exit_code == 1
    assert "pyproject.toml: error project/pyproject-missing" in result.output
    assert "Traceback" not in result.output


def test_unknown_option_is_a_usage_error() -> None:
    result = CliRunner().invoke(app, ["extension", "build", "--bogus"])

    assert result.exit_code == 2


def test_help_does_not_import_the_heavy_core() -> None:
    code = ("import sys; from eve_build.cli import app; "
            "print(sorted(m for m in ('pydantic', 'jinja2', 'yaml', 'hatchling') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"
