"""Nodes for tests: a fresh EVE_HOME, and real node processes run with this interpreter.

Starting with `python=sys.executable` skips the project's venv (this test venv has
eve-build); everything else (socket, pid file, log, describe) is the real thing.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from eve_build.node.lifecycle import StartReport, add_node, plan_add, start_node
from eve_build.node.liveness import read_pid
from eve_build.node.paths import NodePaths
from eve_build.node.process import stop_process
from tests.conftest import FIXTURES, copy_fixture_tree
from tests.runtime.apps import compile_app, make_app


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch) -> Path:
    # a short path: a Unix socket path must stay under 108 bytes
    target = Path(tempfile.mkdtemp(prefix="eve-node-"))
    monkeypatch.setenv("EVE_HOME", str(target))
    return target


@pytest.fixture
def register(home: Path, tmp_path: Path) -> Callable[[str, str], Path]:
    """Copy `fixtures/nodes/<fixture>` and register it as `name`."""

    def register(fixture: str, name: str) -> Path:
        project = copy_fixture_tree(FIXTURES / "nodes" / fixture, tmp_path / name)
        add_node(home, plan_add(home, project, name))
        return project

    return register


@pytest.fixture
def run_node(home: Path, register: Callable[[str, str], Path]
             ) -> Iterator[Callable[[str, str], StartReport]]:
    """Register and start a fixture node; every node still running is stopped after."""
    started: list[str] = []

    def run(fixture: str, name: str) -> StartReport:
        register(fixture, name)
        started.append(name)
        return start_node(home, name, python=Path(sys.executable), timeout=60.0)

    yield run
    for name in started:
        pid = read_pid(NodePaths(home, name))
        if pid is not None:
            stop_process(pid, timeout=2.0)


@pytest.fixture(autouse=True)
def _remove_home(home: Path) -> Iterator[None]:
    yield
    shutil.rmtree(home, ignore_errors=True)


PING = '''\
from pydantic import BaseModel

from eve_build.sdk import define_tool


class PingInput(BaseModel):
    text: str = "ping"


tool = define_tool(description="Answer with pong.", input=PingInput,
                   execute=lambda input, ctx: {"pong": input.text})
'''


@pytest.fixture(scope="module")
def compiled_app(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = make_app(tmp_path_factory.mktemp("node-app") / "app", ["gizmo"], {
        "extensions/gizmo.py": "from gizmo import gizmo\n\nmount = gizmo()\n",
        "tools/ping.py": PING,
    })
    compile_app(root)
    return root


@pytest.fixture
def app(compiled_app: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(compiled_app, tmp_path / "app", symlinks=True))
