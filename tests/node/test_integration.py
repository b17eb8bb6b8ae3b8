"""A real project extension end to end: its own venv, its own PyPI dependency (humanize).

`eve ext add --yes`, `eve ext start` (venv + pip here, uv when on PATH), then `eve call`
of its tool, its `action.call` hook blocking a call, `eve command`, `eve ext stop`,
each through the real `eve` console script with a private EVE_HOME.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

import pytest

from tests.conftest import FIXTURES
from tests.runtime.apps import compile_app, make_app

pytestmark = pytest.mark.integration


@pytest.fixture
def private_home() -> Iterator[Path]:
    home = Path(tempfile.mkdtemp(prefix="eve-int-"))  # short: socket paths stay < 108 bytes
    yield home
    shutil.rmtree(home, ignore_errors=True)


def eve(home: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    environ = {**os.environ, "EVE_HOME": str(home)}
    return subprocess.run([_eve(), *args], cwd=cwd, env=environ, text=True, check=False,
                          stdin=subprocess.DEVNULL, capture_output=True, timeout=900)


def _eve() -> str:
    found = shutil.which("eve", path=str(Path(sys.executable).parent))
    assert found is not None
    return found


def test_a_project_node_with_its_own_dependency(private_home: Path, tmp_path: Path) -> None:
    requirements = metadata.requires("eve-build") or []
    assert not any(r.lower().startswith("humanize") for r in requirements)
    project = Path(shutil.copytree(FIXTURES / "nodes" / "humanize-node", tmp_path / "sizes"))
    app = make_app(tmp_path / "app", ["gizmo"], {
        "extensions/gizmo.py": "from gizmo import gizmo\n\nmount = gizmo()\n"})
    compile_app(app)

    added = eve(private_home, "ext", "add", str(project), "--yes", cwd=tmp_path)
    assert added.returncode == 0, added.stderr
    started = eve(private_home, "ext", "start", "sizes", cwd=tmp_path)
    assert started.returncode == 0, started.stdout + started.stderr
    assert "created .venv with venv" in started.stderr or "created .venv with uv" in (
        started.stderr)
    assert "started" in started.stdout and "`naturalsize`" in started.stdout
    try:
        listed = json.loads(eve(private_home, "ext", "list", "--json", cwd=tmp_path).stdout)
        assert [(r["name"], r["running"], r["tools"]) for r in listed["nodes"]] == [
            ("sizes", True, ["naturalsize"])]
        again = eve(private_home, "ext", "start", "sizes", cwd=tmp_path)
        assert "already running" in again.stdout and "installed" not in again.stderr

        called = eve(private_home, "call", "naturalsize", '{"bytes": 3000000}', "--path",
                     str(app), cwd=tmp_path)
        assert called.returncode == 0, called.stderr
        assert json.loads(called.stdout) == {"size": "3.0 MB"}
        blocked = eve(private_home, "call", "naturalsize", '{"bytes": 10000000000000000}',
                      "--path", str(app), cwd=tmp_path)
        assert blocked.returncode == 1
        assert "humanize-node refuses sizes over a petabyte" in blocked.stderr
        assert "Traceback" not in blocked.stderr
        command = eve(private_home, "command", "ordinal", "3", "--path", str(app),
                      cwd=tmp_path)
        assert command.returncode == 0, command.stderr
        assert command.stdout.strip() == "3rd"
    finally:
        stopped = eve(private_home, "ext", "stop", "sizes", cwd=tmp_path)
    assert stopped.returncode == 0 and stopped.stdout == "Node `sizes` stopped\n"
    restarted = eve(private_home, "ext", "start", "sizes", cwd=tmp_path)  # installed: no pip
    assert restarted.returncode == 0 and "installed" not in restarted.stderr
    assert eve(private_home, "ext", "stop", "sizes", cwd=tmp_path).returncode == 0


def test_a_failing_install_shows_pips_key_line(private_home: Path, tmp_path: Path) -> None:
    project = Path(shutil.copytree(FIXTURES / "nodes" / "install-fails", tmp_path / "broken"))
    assert eve(private_home, "ext", "add", str(project), "--yes", cwd=tmp_path).returncode == 0
    started = eve(private_home, "ext", "start", "broken", cwd=tmp_path)
    assert started.returncode == 1
    assert "error node/install-failed: installing `broken` failed: " in started.stderr
    assert "no-such-package-for-eve-build-tests" in started.stderr
    assert "Traceback" not in started.stderr
    [message] = [line for line in started.stderr.splitlines() if "node/install-failed" in line]
    assert len(message) < 300  # one key line, not the installer's whole output
