"""`eve node add|start|list|stop|remove`: the core of each, one function per verb.

    add_node(home, Path("weather"))      # register: the trust decision
    start_node(home, "weather")          # venv, install, start detached, wait
    stop_node(home, "weather")           # SIGTERM, SIGKILL after a timeout

Every user mistake is a DiagnosticsError with one `node/...` diagnostic.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eve_build.diagnostics import Diagnostic, error
from eve_build.errors import DiagnosticsError
from eve_build.naming import find_segment_problems, suggest_segment
from eve_build.node import process
from eve_build.node.description import DescriptionError, parse_description
from eve_build.node.liveness import clean_stale, read_pid
from eve_build.node.paths import NodePaths
from eve_build.node.project import EXTENSION_FILE
from eve_build.node.registry import (
    NodeEntry,
    read_registry,
    read_registry_checked,
    write_registry,
)
from eve_build.node.venv import ensure_environment
from eve_build.process import Runner, run_subprocess

NOT_RUNNING = "not-running"
"""What `stop_node` says of a node that was not running (stopping it again is no error)."""


@dataclass(frozen=True)
class StartReport:
    name: str
    pid: int
    socket: Path
    log: Path
    tools: list[str]
    steps: list[str] = field(default_factory=list)
    already_running: bool = False


def plan_add(home: Path, path: Path, name: str | None = None) -> NodeEntry:
    """What `eve node add` would register (checked; nothing written)."""
    project = path.expanduser().resolve()
    node_name = name or project.name
    if not (project / "pyproject.toml").is_file():
        raise _fail("node/project-invalid", str(project),
                    f"`{project}` is not a Python project: it has no pyproject.toml",
                    "a project extension is a folder with pyproject.toml and extension.py")
    problems = find_segment_problems(node_name)
    if problems:
        raise _fail("node/name-invalid", str(project), "; ".join(problems),
                    f"pass `--name {suggest_segment(node_name)}`")
    known = read_registry(home).get(node_name)
    if known is not None and known.path != project:
        raise _fail("node/already-registered", str(project),
                    f"the name `{node_name}` is registered for `{known.path}`",
                    f"pass `--name` with another name, or `eve node remove {node_name}` first")
    return NodeEntry(node_name, project)


def add_node(home: Path, entry: NodeEntry) -> None:
    """Register `entry` in `$EVE_HOME/nodes.json`."""
    nodes = read_registry(home)
    nodes[entry.name] = entry
    write_registry(home, nodes)


def find_node(home: Path, name: str) -> NodeEntry:
    entry = read_registry(home).get(name)
    if entry is None:
        known = ", ".join(f"`{n}`" for n in read_registry(home)) or "none"
        raise _fail("node/not-registered", str(home / "nodes.json"),
                    f"no node `{name}` is registered (registered: {known})",
                    "register it first with `eve node add PATH`")
    return entry


def start_node(home: Path, name: str, *, runner: Runner = run_subprocess,
               python: Path | None = None, timeout: float = process.START_TIMEOUT,
               ) -> StartReport:
    """Install what is missing and start the node; `python` skips the venv (tests)."""
    entry = find_node(home, name)
    paths = NodePaths(home, name)
    if not (entry.path / EXTENSION_FILE).is_file():
        raise _fail("node/extension-missing", str(entry.path / EXTENSION_FILE),
                    f"node `{name}` has no `{EXTENSION_FILE}` in `{entry.path}`",
                    "define `setup(ctx) -> Spec` in extension.py")
    pid = read_pid(paths)
    running = process.describe_running(paths) if pid is not None else None
    if pid is not None and running is not None:
        remember_tools(home, name, _tools(running))
        return StartReport(name, pid, paths.socket, paths.log, _tools(running),
                           already_running=True)
    if pid is not None:  # alive but not answering: replace it
        process.stop_process(pid)
    clean_stale(paths)
    steps: list[str] = []
    if python is None:
        python, steps = ensure_environment(entry.path, name, runner)
    child = process.spawn_node(python, paths, entry.path)
    outcome = process.wait_until_answering(child, paths, timeout)
    if not isinstance(outcome, str):
        try:
            outcome = parse_description(outcome)
        except DescriptionError as exc:  # hosts would drop it: say so now, and stop it
            outcome = f"it answered `describe` with {exc}"
    if isinstance(outcome, str):
        if child.poll() is None:
            process.stop_process(child.pid)
        clean_stale(paths)
        raise _fail("node/start-failed", str(paths.log), f"node `{name}` did not start: "
                    f"{outcome}", f"the whole log is in `{paths.log}`")
    remember_tools(home, name, _tools(outcome))
    return StartReport(name, child.pid, paths.socket, paths.log, _tools(outcome), steps)


def remember_tools(home: Path, name: str, tools: list[str]) -> None:
    """Record the node's tools in its registry entry (written only when they changed)."""
    nodes = read_registry(home)
    entry = nodes.get(name)
    if entry is not None and entry.tools != tuple(tools):
        nodes[name] = NodeEntry(name, entry.path, tuple(tools))
        write_registry(home, nodes)


def stop_node(home: Path, name: str, *, timeout: float = process.STOP_TIMEOUT) -> str:
    """Stop a running node: `stopped` or `killed`; `not-running` when there is nothing to do.

    Only a process proven to be the node is signalled (`liveness.read_pid`): a pid file
    naming any other process, or a zombie, is stale and only its files are removed.
    """
    find_node(home, name)
    paths = NodePaths(home, name)
    pid = read_pid(paths)
    if pid is None:
        clean_stale(paths)
        return NOT_RUNNING
    how = process.stop_process(pid, timeout)
    clean_stale(paths)
    return how


def remove_node(home: Path, name: str) -> bool:
    """Stop the node if it runs, then forget it; True when it was running."""
    was_running = stop_node(home, name) != NOT_RUNNING  # stale files go too
    nodes = read_registry(home)
    del nodes[name]
    write_registry(home, nodes)
    return was_running


def list_nodes(home: Path) -> list[dict[str, Any]]:
    """One row per registered node: name, path, running, pid, socket, log, tools."""
    return list_nodes_checked(home)[0]


def list_nodes_checked(home: Path) -> tuple[list[dict[str, Any]], list[Diagnostic]]:
    """`list_nodes`, and a warning for each registry entry that was left out."""
    registry, problems = read_registry_checked(home)
    rows = []
    for entry in registry.values():
        paths = NodePaths(home, entry.name)
        pid = read_pid(paths)
        description = process.describe_running(paths) if pid is not None else None
        if pid is None:
            clean_stale(paths)
        rows.append({"name": entry.name, "path": str(entry.path),
                     "running": description is not None, "pid": pid,
                     "socket": str(paths.socket), "log": str(paths.log),
                     "tools": _tools(description) if description else []})
    return rows, problems


def _tools(description: dict[str, Any]) -> list[str]:
    """The tool names of a description (none when it does not fit the protocol)."""
    try:
        return [str(item["name"]) for item in parse_description(description)["tools"]]
    except DescriptionError:
        return []


TITLES = {"node/project-invalid": "cannot register the node",
          "node/name-invalid": "cannot register the node",
          "node/already-registered": "cannot register the node",
          "node/not-registered": "unknown node",
          "node/extension-missing": "cannot start the node",
          "node/start-failed": "cannot start the node"}


def _fail(code: str, file: str, message: str, hint: str) -> DiagnosticsError:
    return DiagnosticsError(TITLES.get(code, "`eve node` failed"),
                            [error(code, file, message, hint)])
