"""A pyproject.toml that is not valid TOML is a diagnostic at `pyproject.toml:LINE`, the
line the parser stopped at: an extension's (`eve extension build`), a workspace's and a
workspace member's (`eve build`), in real subprocesses."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from eve_build.diagnostics import locate_toml_error
from tests.conftest import FIXTURES, copy_fixture_tree
from tests.runtime.apps import make_app, mount_file


def _eve(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "eve_build", *args, "--path", str(root)],
                          capture_output=True, text=True, timeout=300, check=False,
                          env={**os.environ, "NO_COLOR": "1", "EVE_HOME": str(root / "home")})


def _break(path: Path, line: int, text: str) -> None:
    """Insert `text` so that it is line `line` of the file."""
    lines = path.read_text().splitlines()
    lines.insert(line - 1, text)
    path.write_text("\n".join(lines) + "\n")


def test_an_extensions_invalid_pyproject_names_the_line(tmp_path: Path) -> None:
    root = copy_fixture_tree(FIXTURES / "extensions" / "gizmo", tmp_path / "gizmo")
    _break(root / "pyproject.toml", 3, 'requires = []')  # a key defined twice

    done = _eve(root, "extension", "build")

    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert "pyproject.toml:3: error project/pyproject-invalid: not valid TOML: " in done.stderr, \
        done.stderr


def test_a_workspaces_invalid_pyproject_names_the_line(tmp_path: Path) -> None:
    (tmp_path / "app").mkdir()
    root = make_app(tmp_path / "app", ["gizmo"], {"extensions/gizmo.py": mount_file("gizmo")})
    _break(root / "pyproject.toml", 3, 'version = "0.1.0"')  # a key defined twice

    done = _eve(root, "build")

    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert ("pyproject.toml:4: error workspace/pyproject-invalid: `pyproject.toml` is not "
            "valid TOML") in done.stderr, done.stderr


def test_a_members_invalid_pyproject_names_the_line_not_a_missing_package(
        tmp_path: Path) -> None:
    (tmp_path / "app").mkdir()
    root = make_app(tmp_path / "app", ["gizmo"], {"extensions/gizmo.py": mount_file("gizmo")})
    _break(root / "extensions/gizmo/pyproject.toml", 3, "requires = []")  # defined twice

    done = _eve(root, "build")

    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert ("extensions/gizmo/pyproject.toml:3: error workspace/member-pyproject-invalid: "
            "`extensions/gizmo/pyproject.toml` of the workspace member `gizmo` is not valid "
            "TOML: ") in done.stderr, done.stderr
    assert "mount/package-not-found" not in done.stderr  # what it used to say instead


def test_the_line_comes_from_each_parsers_words() -> None:
    import tomllib

    import pytest
    import tomlkit

    text = "a = 1\nb = [\n1\n2]\n"
    with pytest.raises(tomllib.TOMLDecodeError) as standard:
        tomllib.loads(text)
    with pytest.raises(tomlkit.exceptions.ParseError) as kept:
        tomlkit.parse(text)
    with pytest.raises(tomllib.TOMLDecodeError) as ended:
        tomllib.loads("a = 1\nb = [1,")
    assert locate_toml_error(standard.value, text) == 4
    assert locate_toml_error(kept.value, text) == 4
    assert locate_toml_error(ended.value, "a = 1\nb = [1,") == 2  # at end of document
    assert locate_toml_error(ValueError("no line here")) is None
