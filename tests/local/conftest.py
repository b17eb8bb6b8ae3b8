"""Local-extension fixtures: a compiled agent app, and fixture scripts put in place.

The app mounts `gizmo` (tool `gizmo__spin`) and has a tool of its own, `ping`. It is
compiled once per session and copied for each test, so every test has its own
project folder (`<app>/.eve/extensions/`) and, from tests/conftest.py, its own
empty `EVE_HOME`.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from eve_build.runtime import Agent, load_agent
from tests.conftest import FIXTURES
from tests.runtime.apps import compile_app, make_app

LOCAL = FIXTURES / "local"
PING = '''\
from pydantic import BaseModel

from eve_build.sdk import define_tool


class PingInput(BaseModel):
    text: str = "ping"


tool = define_tool(description="Answer with pong.", input=PingInput,
                   execute=lambda input, ctx: {"pong": input.text})
'''


WATCH = '''\
from eve_build.sdk import define_hook, define_state

seen = define_state("seen", list)


def record(event, ctx):
    seen.update(lambda items: [*items, [event.name, event.tool]])


hook = define_hook(events={"tool.start": record, "tool.end": record, "agent.start": record})
'''
SKILL = "---\ndescription: Summarize a text.\n---\nSummarize in three lines.\n"


@pytest.fixture(scope="session")
def compiled_app(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = make_app(tmp_path_factory.mktemp("local-app") / "app", ["gizmo"], {
        "extensions/gizmo.py": "from gizmo import gizmo\n\nmount = gizmo()\n",
        "tools/ping.py": PING,
        "skills/summarize.md": SKILL,
        "hooks/watch.py": WATCH,
    })
    compile_app(root)
    return root


@pytest.fixture
def app(compiled_app: Path, tmp_path: Path) -> Path:
    """A fresh copy of the compiled app (its `.eve/compile/` included)."""
    return Path(shutil.copytree(compiled_app, tmp_path / "app", symlinks=True))


def place(folder: Path, *names: str) -> list[Path]:
    """Copy fixtures/local/<name> (a file or a folder) into `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    placed = []
    for name in names:
        source = LOCAL / name
        target = folder / name
        if source.is_dir():
            shutil.copytree(source, target)
        else:
            shutil.copyfile(source, target)
        placed.append(target)
    return placed


@pytest.fixture
def global_dir(eve_home: Path) -> Path:
    return eve_home / "extensions"


@pytest.fixture
def load() -> Iterator[Callable[..., Agent]]:
    """`load(root, **options)`: load_agent with local extensions; closed after the test."""
    opened: list[Agent] = []

    def open_app(root: Path, **options: Any) -> Agent:
        options.setdefault("environ", {})
        agent = load_agent(root, **options)
        opened.append(agent)
        return agent

    yield open_app
    for agent in reversed(opened):
        agent.close()
