"""`eve add <folder>` and `eve extension pack` say why pip and hatchling failed, in their
own words, not pip's or build's wrapper lines ("See above for details", "Backend
subprocess exited ...").

A broken package: the fixture extension with a `readme` that does not exist, which
eve's own build accepts and hatchling refuses when it reads the metadata.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, copy_fixture_tree

pytestmark = pytest.mark.integration

REASON = "OSError: Readme file does not exist: MISSING.md"


@pytest.fixture
def broken(tmp_path: Path) -> Path:
    root = copy_fixture_tree(FIXTURES / "extensions" / "gizmo", tmp_path / "gizmo")
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('readme = "README.md"',
                                                       'readme = "MISSING.md"'))
    return root


def _eve(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "UV_"))}
    return subprocess.run([sys.executable, "-m", "eve_build", *args], cwd=cwd, env=env,
                          text=True, capture_output=True, timeout=600, check=False)


def _snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file()}


def test_pack_shows_hatchlings_reason(broken: Path) -> None:
    done = _eve("extension", "pack", "--no-isolation", cwd=broken)

    assert done.returncode == 1, done.stdout + done.stderr
    assert f"error: `python -m build` failed (exit code 1): {REASON}" in done.stderr
    assert "Backend subprocess exited" not in done.stderr
    assert "Traceback" not in done.stderr


def test_add_of_a_folder_shows_pips_and_hatchlings_reason(broken: Path, tmp_path: Path) -> None:
    project = copy_fixture_tree(FIXTURES / "apps" / "installed", tmp_path / "agent-project")
    before = _snapshot(project)

    done = _eve("add", str(broken), "--as", "broken", "--path", str(project), cwd=tmp_path)

    assert done.returncode == 1, done.stdout + done.stderr
    assert "error add/install-failed:" in done.stderr
    assert f"installing `{broken}` failed: {REASON}" in done.stderr
    assert "See above" not in done.stderr and "This is an issue" not in done.stderr
    assert _snapshot(project) == before
