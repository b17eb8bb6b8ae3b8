"""Running nodes as a source of local extensions (origin `node`, DESIGN.md section 8).

`NodeSource` is one more entry in `eve_build.local.load.derive_local_sources`: the
host loads its records after the scripts and applies the same rules to them (names,
collisions, hook order, the 5 s budget). A registered node that is not running is a
`stopped` record; one that fails the socket checks or `describe` is `dropped`.
What a node's code says through its ctx (`notify`, `send_user_message`,
`append_entry`) lands in the host's session as a script's would.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from eve_build.errors import EveBuildError
from eve_build.local.context import LocalSession, ScriptContext
from eve_build.local.record import LoadRequest, LocalExtension
from eve_build.node.paths import registry_path

if TYPE_CHECKING:
    from eve_build.diagnostics import Diagnostic
    from eve_build.node.client import NodeClient
    from eve_build.node.scan import ScannedNode


class NodeSource:
    """Loads one record per registered node from `$EVE_HOME`."""

    def __init__(self) -> None:
        self._contexts: dict[str, ScriptContext] = {}
        self._clients: list[NodeClient] = []
        self._nodes: list[ScannedNode] = []
        self.seen: tuple[object, ...] | None = None  # the fingerprint at the last load

    def load(self, request: LoadRequest) -> list[LocalExtension]:
        session: LocalSession = request.session
        if not os.path.lexists(registry_path(request.eve_home)):
            # no node was ever registered: what the scan would find, without importing
            # the node client (most runs; `eve run` stays as quick as it can)
            nodes: list[ScannedNode] = []
            problems: list[Diagnostic] = []
        else:
            from eve_build.node.scan import scan_nodes

            nodes, problems = scan_nodes(request.eve_home, budget=request.budget,
                                         on_notice=self._notice)
        self._nodes = nodes
        self.seen = self.fingerprint(request.eve_home)  # after the scan removed stale files
        records: list[LocalExtension] = []
        for node in nodes:
            context = ScriptContext(node.name, request.project_root, node.path, session)
            self._contexts[node.name] = context
            record = LocalExtension(
                node.name, "node", str(node.path), node.status,
                spec=node.client.spec() if node.client is not None else None,
                context=context, diagnostics=list(node.diagnostics), running=node.running)
            if node.client is not None:  # a drop later in the session shows on the record
                node.client.diagnostics = record.diagnostics
                self._clients.append(node.client)
            records.append(record)
        if problems:  # an unreadable nodes.json: say so on a record of its own
            records.append(LocalExtension("nodes.json", "node", str(request.eve_home),
                                          "dropped", diagnostics=problems, running=False))
        return records

    def close(self) -> None:
        for client in self._clients:
            client.close()
        self._clients.clear()
        self._contexts.clear()
        self._nodes = []

    def fingerprint(self, home: Path) -> tuple[object, ...]:
        """What a rescan would see differently: the registry file, and per registered node
        its socket, its proven pid and whether this host dropped it (a few stats)."""
        registry = _stat(registry_path(home))
        parts: list[object] = [registry]
        if registry is None:  # no file: an empty registry (read_registry's answer)
            return tuple(parts)
        from eve_build.node.liveness import read_pid
        from eve_build.node.paths import NodePaths
        from eve_build.node.registry import read_registry

        try:
            names = sorted(read_registry(home))
        except EveBuildError:
            names = []
        dropped = {node.name for node in self._nodes
                   if node.client is not None and node.client.dropped is not None}
        for name in names:
            paths = NodePaths(home, name)
            parts.append((name, _stat(paths.socket), read_pid(paths), name in dropped))
        return tuple(parts)

    def find_tool_owner(self, tool: str) -> tuple[str, str] | None:
        """(node, why the agent lacks `tool` now) when it is the tool of a node that is not
        running, was dropped, or was last started with it; None otherwise."""
        for node in self._nodes:
            client = node.client
            if client is not None and client.dropped is None:
                continue  # a working node: its tools are on the surface
            known = node.known_tools if client is None else tuple(
                str(item["name"]) for item in client.description["tools"])
            if tool not in known:
                continue
            if client is not None:
                return node.name, f"was dropped: it {client.dropped}"
            if node.status == "stopped":
                return node.name, "is not running"
            first = node.diagnostics[0].message if node.diagnostics else "it did not load"
            return node.name, f"was left out ({first})"
        return None

    def _notice(self, node: str, kind: str, data: dict[str, Any]) -> None:
        from eve_build.node import protocol

        context = self._contexts.get(node)
        if context is None:
            return
        if kind == protocol.NOTIFY:
            context.notify(str(data.get("text", "")), str(data.get("level", "info")))
        elif kind == protocol.USER_MESSAGE:
            context.send_user_message(str(data.get("text", "")))
        elif kind == protocol.APPEND_ENTRY and isinstance(data.get("entry"), dict):
            context.append_entry(data["entry"])
        elif kind == protocol.PUBLISH:
            context.publish(str(data.get("name", "")), data.get("data"))
        elif kind == protocol.CUSTOM_MESSAGE:
            context.send_custom_message(str(data.get("text", "")),
                                        str(data.get("type", "custom")), data.get("data"))


def _stat(path: Path) -> tuple[int, int, int] | None:
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return info.st_ino, info.st_mtime_ns, info.st_size
