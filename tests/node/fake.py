"""A fake node for fault tests: answers each request line with what a script says."""

from __future__ import annotations

import json
import socketserver
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from eve_build.node.paths import ensure_run_dir

Answer = Callable[[dict[str, Any]], bytes | None]
"""Request -> the raw bytes to send back (None: never answer)."""

DESCRIPTION = {"protocol": 1, "name": "fake", "guidelines": [], "commands": [],
               "hooks": ["action.call"], "events": [],
               "tools": [{"name": "echo", "description": "Echo.", "inputSchema": {},
                          "timeout": None}]}


def reply(request: dict[str, Any], result: Any) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": result}).encode() + b"\n"


def describing(then: Answer) -> Answer:
    """Answer `describe` properly and everything else with `then`."""
    return lambda request: (reply(request, DESCRIPTION) if request["method"] == "describe"
                            else then(request))


@contextmanager
def fake_node(home: Path, name: str, answer: Answer) -> Iterator[Path]:
    socket_path = ensure_run_dir(home) / f"{name}.sock"
    stop = threading.Event()

    class Handler(socketserver.StreamRequestHandler):
        def handle(self) -> None:
            for line in self.rfile:
                data = answer(json.loads(line))
                if data is None:
                    stop.wait(30)
                    return
                self.wfile.write(data)

    server = socketserver.ThreadingUnixStreamServer(str(socket_path), Handler)
    server.daemon_threads = True
    socket_path.chmod(0o600)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield socket_path
    finally:
        stop.set()
        server.shutdown()
        server.server_close()
        socket_path.unlink(missing_ok=True)
