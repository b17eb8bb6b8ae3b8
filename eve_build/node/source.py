"""Running nodes as a source of local extensions (origin `node`, DESIGN.md section 8).

`NodeSource` is one more entry in `eve_build.local.load.derive_local_sources`: the
host loads its records after the scripts and applies the same rules to them (names,
collisions, hook order, the 5 s budget). A registered node that is not running is a
`stopped` record; one that fails the socket checks or `describe` is `dropped`.
What a node's code says through its ctx (`notify`, `send_user_message`,
`append_entry`) lands in the host's session as a script's would.
"""

from __future__ import annotations

from typing import Any

from eve_build.local.context import LocalSession, ScriptContext
from eve_build.local.record import LoadRequest, LocalExtension
from eve_build.node import protocol
from eve_build.node.client import NodeClient
from eve_build.node.scan import scan_nodes


class NodeSource:
    """Loads one record per registered node from `$EVE_HOME`."""

    def __init__(self) -> None:
        self._contexts: dict[str, ScriptContext] = {}
        self._clients: list[NodeClient] = []

    def load(self, request: LoadRequest) -> list[LocalExtension]:
        session: LocalSession = request.session
        nodes, problems = scan_nodes(request.eve_home, budget=request.budget,
                                     on_notice=self._notice)
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

    def _notice(self, node: str, kind: str, data: dict[str, Any]) -> None:
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
