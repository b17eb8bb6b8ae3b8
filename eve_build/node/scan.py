"""Find the nodes a host may use: registered in `nodes.json`, listening in `run/`.

Every registered node gets one `ScannedNode`: `running` with a client when its
socket passed the security checks and answered `describe` within the budget;
otherwise `stopped` (no socket), or `dropped` with a diagnostic saying why. A socket
left by a killed node (nothing answers, or its pid is gone) is removed here.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eve_build.diagnostics import Diagnostic, error, warning
from eve_build.errors import EveBuildError
from eve_build.node import protocol
from eve_build.node.client import NodeClient
from eve_build.node.connection import NodeConnection, NodeError, run_sync
from eve_build.node.description import DescriptionError, parse_description
from eve_build.node.liveness import clean_stale, read_pid
from eve_build.node.paths import NodePaths
from eve_build.node.registry import read_registry_checked
from eve_build.node.security import find_socket_problem

DESCRIBE_BUDGET = 5.0
"""Seconds a node has to answer `describe` when a host loads (the hook budget)."""


@dataclass
class ScannedNode:
    name: str
    path: Path
    socket: Path
    status: str  # loaded | stopped | dropped
    pid: int | None = None
    client: NodeClient | None = None
    known_tools: tuple[str, ...] = ()  # its tools when it was last started
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def running(self) -> bool:
        return self.client is not None


def scan_nodes(home: Path, *, budget: float = DESCRIBE_BUDGET,
               on_notice: Callable[[str, str, dict[str, Any]], None] | None = None,
               ) -> tuple[list[ScannedNode], list[Diagnostic]]:
    """One ScannedNode per registered node (sorted by name), and registry problems."""
    try:
        registry, problems = read_registry_checked(home)
    except EveBuildError as exc:
        return [], [error("node/registry-invalid", str(home / "nodes.json"), exc.message,
                          exc.hint)]
    nodes = [ScannedNode(entry.name, entry.path, NodePaths(home, entry.name).socket, "stopped",
                         read_pid(NodePaths(home, entry.name)), known_tools=entry.tools)
             for entry in registry.values()]
    live = [node for node in nodes if _check(node)]
    if live:
        descriptions = run_sync(_describe_all(live, budget))
        for node, outcome in zip(live, descriptions, strict=True):
            if isinstance(outcome, dict):
                node.status = "loaded"
                node.client = NodeClient(node.name, node.socket, outcome, on_notice)
            else:  # a stale socket is a stopped node; anything else is a failing one
                node.status = "stopped" if outcome.code == "node/stale" else "dropped"
                node.diagnostics.append(outcome)
    return nodes, problems


def _check(node: ScannedNode) -> bool:
    """Whether to connect: a socket is there, safe, and (when a pid file says so) alive."""
    paths = NodePaths(node.socket.parent.parent, node.name)
    if not node.socket.exists() and not node.socket.is_symlink():
        clean_stale(paths)
        return False
    problem = find_socket_problem(node.socket)
    if problem is not None:
        node.status = "dropped"
        node.diagnostics.append(error(
            "node/socket-unsafe", str(node.socket), f"node `{node.name}` refused: {problem}",
            "only the user who runs the host may own a node's socket (mode 0600); "
            f"remove it and run `eve node start {node.name}`"))
        return False
    if paths.pid_file.exists() and clean_stale(paths):
        node.diagnostics.append(warning(
            "node/stale", str(node.socket), f"node `{node.name}` is gone (its process "
            "no longer runs); its socket and pid file were removed",
            f"start it again with `eve node start {node.name}`"))
        return False
    return True


async def _describe_all(nodes: list[ScannedNode], budget: float) -> list[Any]:
    return list(await asyncio.gather(*(_describe(node, budget) for node in nodes)))


async def _describe(node: ScannedNode, budget: float) -> dict[str, Any] | Diagnostic:
    hint = f"see its log, then `eve node start {node.name}` again"
    try:
        connection = await NodeConnection.open(node.name, node.socket, timeout=budget)
    except NodeError as exc:  # nothing listens: a node killed before it could clean up
        node.socket.unlink(missing_ok=True)
        NodePaths(node.socket.parent.parent, node.name).pid_file.unlink(missing_ok=True)
        return warning("node/stale", str(node.socket),
                       f"{exc.message}; the stale socket was removed",
                       f"start it again with `eve node start {node.name}`")
    try:
        result = await connection.request(protocol.DESCRIBE, {}, timeout=budget)
    except (NodeError, protocol.RemoteError) as exc:
        message = str(exc) if isinstance(exc, NodeError) else f"node `{node.name}` {exc}"
        return error("node/describe-failed", str(node.socket), message, hint)
    finally:
        await connection.close()
    try:
        return parse_description(result)
    except DescriptionError as exc:
        return error("node/describe-failed", str(node.socket),
                     f"node `{node.name}` answered `describe` with {exc}; it is left out", hint)
