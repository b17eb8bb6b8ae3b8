"""`eve node` is the command for project extensions; `eve ext`, its old name, still works
exactly as before (hidden from `eve --help`). Real `eve` processes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, copy_fixture_tree

EVE = Path(sys.executable).parent / "eve"


def eve(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([EVE, *args], env={**os.environ, "EVE_HOME": str(home)}, text=True,
                          check=False, stdin=subprocess.DEVNULL, capture_output=True,
                          timeout=600)


def test_help_lists_node_and_hides_ext(home: Path) -> None:
    shown = eve(home, "--help").stdout
    assert "node " in shown and "Project extensions (nodes)" in shown
    assert "\n  ext " not in shown and "│ ext " not in shown
    for name in ("node", "ext"):
        commands = eve(home, name, "--help")
        assert commands.returncode == 0
        assert f"Usage: eve {name} " in commands.stdout
        for verb in ("add", "start", "list", "stop", "remove"):
            assert verb in commands.stdout


def _session(home: Path, name: str, project: Path) -> list[tuple[int, str, str]]:
    """add, list, remove, remove again (an error) with `eve NAME`, outputs kept."""
    runs = [eve(home, name, "add", str(project), "--yes"), eve(home, name, "list", "--json"),
            eve(home, name, "remove", "echo-node"), eve(home, name, "remove", "echo-node")]
    return [(r.returncode, r.stdout, r.stderr) for r in runs]


@pytest.mark.parametrize("name", ["node", "ext"])
def test_node_and_ext_register_list_and_remove(home: Path, tmp_path: Path, name: str) -> None:
    project = copy_fixture_tree(FIXTURES / "nodes" / "echo-node", tmp_path / "echo-node")
    [added, listed, removed, again] = _session(home, name, project)

    assert added[0] == 0, added[2]
    assert "Registered node `echo-node`" in added[1] + added[2]
    assert listed[0] == 0 and '"name": "echo-node"' in listed[1]
    assert removed[0] == 0, removed[2]
    assert again[0] == 1 and "Traceback" not in again[2]


def test_ext_answers_exactly_as_node(home: Path, tmp_path: Path) -> None:
    project = copy_fixture_tree(FIXTURES / "nodes" / "echo-node", tmp_path / "echo-node")

    assert _session(home, "ext", project) == _session(home, "node", project)
