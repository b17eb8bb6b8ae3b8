"""`eve dev` picks up a node that starts (or comes back) while it runs."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from pathlib import Path

from eve_build.dev.loop import DevSession, Generation, LocalRound, run_dev
from eve_build.node.lifecycle import start_node, stop_node
from eve_build.node.paths import NodePaths


def test_a_node_starting_and_stopping_reloads_the_local_extensions(
        app: Path, home: Path, register: Callable[[str, str], Path]) -> None:
    register("echo-node", "echo")
    paths = NodePaths(home, "echo")
    paths.run_dir.mkdir(mode=0o700)
    watched: list[list[Path]] = []

    def watch(roots: list[Path]) -> Iterable[set[Path]]:
        watched.append(roots)
        start_node(home, "echo", python=Path(sys.executable), timeout=60.0)
        yield {paths.socket}
        stop_node(home, "echo")
        yield {paths.socket}

    rounds: list[LocalRound] = []
    generations: list[Generation] = []
    run_dev(DevSession(app), generations.append, watch, on_local=rounds.append)
    assert paths.run_dir.resolve() in watched[0]
    assert [[(row["name"], row["status"], row["running"]) for row in r.rows
             if row["origin"] == "node"] for r in rounds] == [
        [("echo", "loaded", True)], [("echo", "stopped", False)]]
