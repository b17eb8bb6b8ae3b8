"""A uvicorn server in a thread, on a free 127.0.0.1 port, for the length of a `with`."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn

START_TIMEOUT = 30.0


def free_port() -> int:
    """A port free a moment ago: only for a server that must come back on the same port
    (anything else binds port 0 and reads it back, or holds the port: `listening`)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def listening() -> socket.socket:
    """A socket listening on a port of 127.0.0.1 the system chose (port 0, read back with
    `getsockname()`): no other process (another xdist worker) can take it meanwhile."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    return sock


@contextmanager
def refusing_port() -> Iterator[int]:
    """A port of 127.0.0.1 that refuses connections while the block runs: bound, never
    listening, so no other process can start listening on it meanwhile."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield int(sock.getsockname()[1])


@contextmanager
def serving(app: Any) -> Iterator[str]:
    """Serve `app`; yields its base URL (`http://127.0.0.1:PORT`)."""
    sock = listening()
    port = int(sock.getsockname()[1])
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + START_TIMEOUT
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(START_TIMEOUT)
        sock.close()
