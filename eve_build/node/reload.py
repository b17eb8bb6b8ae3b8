"""`eve node start --reload NAME`: restart the node whenever its sources change.

The edit-save-call loop of a project then works like a script's: a host's next call
reaches the new code. The venv is left out of the watch; a changed pyproject.toml
makes the restart reinstall (the install stamp no longer matches).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import watchfiles

from eve_build.errors import EveBuildError
from eve_build.node.lifecycle import StartReport, find_node, start_node, stop_node
from eve_build.node.liveness import read_pid
from eve_build.node.paths import NodePaths
from eve_build.process import Runner, run_subprocess

IGNORED_DIRS = frozenset({".venv", "__pycache__", ".git", ".eve", "build", "dist"})


class SourceFilter(watchfiles.DefaultFilter):
    """watchfiles' default filter, also ignoring the venv and build outputs."""

    def __init__(self) -> None:
        super().__init__(ignore_dirs=tuple(IGNORED_DIRS | set(self.ignore_dirs)))


def run_with_reload(home: Path, name: str, on_start: Callable[[StartReport], None],
                    on_change: Callable[[str], None], *, runner: Runner = run_subprocess,
                    python: Path | None = None, stop: threading.Event | None = None) -> None:
    """Start the node, restart it after each change, stop it when the watch ends."""
    project = find_node(home, name).path
    on_start(start_node(home, name, runner=runner, python=python))
    try:
        for changes in watchfiles.watch(project, watch_filter=SourceFilter(), stop_event=stop,
                                        raise_interrupt=False):
            changed = sorted({str(Path(path).relative_to(project)) for _, path in changes})
            on_change(", ".join(changed))
            if read_pid(NodePaths(home, name)) is not None:
                stop_node(home, name)
            try:
                on_start(start_node(home, name, runner=runner, python=python))
            except EveBuildError as exc:  # a broken edit: say so and wait for the next one
                on_change(f"the node did not start: {exc.message}")
    finally:
        if read_pid(NodePaths(home, name)) is not None:
            stop_node(home, name)
