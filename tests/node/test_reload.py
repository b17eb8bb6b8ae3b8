"""`eve ext start --reload`: an edit restarts the node with the new code."""

from __future__ import annotations

import queue
import sys
import threading
from collections.abc import Callable
from pathlib import Path

from eve_build.node.lifecycle import StartReport
from eve_build.node.liveness import read_pid
from eve_build.node.paths import NodePaths
from eve_build.node.reload import run_with_reload

NEW_TOOL = '''

class ShoutInput(BaseModel):
    text: str


_previous_setup = setup


def setup(ctx):
    spec = _previous_setup(ctx)
    tools = dict(spec.tools)
    tools["shout"] = define_tool(description="Shout.", input=ShoutInput,
                                 execute=lambda input, ctx: input.text.upper())
    return Spec(tools=tools, guidelines=spec.guidelines, commands=spec.commands,
                hooks=spec.hooks, events=spec.events)
'''


def test_an_edit_restarts_the_node_and_the_end_stops_it(
        home: Path, register: Callable[[str, str], Path]) -> None:
    project = register("echo-node", "echo")
    starts: queue.Queue[StartReport] = queue.Queue()
    changes: list[str] = []
    stop = threading.Event()
    watcher = threading.Thread(target=run_with_reload, args=(
        home, "echo", starts.put, changes.append), kwargs={
        "python": Path(sys.executable), "stop": stop}, daemon=True)
    watcher.start()
    first = starts.get(timeout=60)
    assert first.tools == ["echo", "sleep", "wait"]
    with (project / "extension.py").open("a") as source:
        source.write(NEW_TOOL)
    second = starts.get(timeout=60)
    assert second.tools == ["echo", "shout", "sleep", "wait"]
    assert second.pid != first.pid
    assert changes == ["extension.py"]
    stop.set()
    watcher.join(timeout=60)
    assert not watcher.is_alive()
    assert read_pid(NodePaths(home, "echo")) is None
