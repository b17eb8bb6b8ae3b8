"""Run the served agent on uvicorn until SIGINT or SIGTERM.

The listening socket is bound here, before the agent loads, so a port in use is
a clear error and not a log line of uvicorn's. uvicorn drains requests in flight
and runs the app's shutdown on either signal; this module then returns normally
(exit 0) instead of re-raising the signal the way uvicorn does on its own.
"""

from __future__ import annotations

import contextlib
import errno
import importlib.util
import signal
import socket
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from eve_build.serve.errors import serve_error
from eve_build.serve.request import CHANNEL_TIMEOUT, MAX_BODY

if TYPE_CHECKING:
    from starlette.applications import Starlette

    from eve_build.serve.app import Lifespan
    from eve_build.serve.generation import Host

GRACEFUL_SECONDS = 10.0
"""How long a stopping server waits for requests in flight before it closes them."""


@dataclass(frozen=True)
class Served:
    """Where the server listened, and the signal that stopped it (None: it stopped itself)."""

    url: str
    signal: str | None


def bind_socket(host: str, port: int) -> socket.socket:
    """A listening TCP socket on host:port (raises DiagnosticsError when it is taken)."""
    if not 0 <= port <= 65535:
        raise serve_error("serve/address-invalid", f"port {port} is not a TCP port",
                          "pass `--port` between 1 and 65535 (0 picks a free one)")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # proto must say TCP: asyncio sets TCP_NODELAY on accepted connections only when it
    # does, and without it every response waits ~40 ms on Nagle and delayed ACKs.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise serve_error("serve/port-in-use", f"{host}:{port} is already in use",
                              "stop what listens there, or pass another `--port`") from None
        raise serve_error("serve/address-invalid", f"cannot listen on {host}:{port}: "
                          f"{exc.strerror}", "pass `--host 127.0.0.1` (the default) or another "
                          "address") from None
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def run_server(
    root: Path, *, host: str = "127.0.0.1", port: int = 8000,
    channel_timeout: float = CHANNEL_TIMEOUT, environ: Mapping[str, str] | None = None,
    on_ready: Callable[[str], None] | None = None, log_level: str = "info",
    generations: Host | None = None, lifespans: Sequence[Lifespan] = (),
    access_log: bool = True, extensions: Sequence[Path] = (), max_body: int = MAX_BODY,
) -> Served:
    """Serve `root`'s agent until a signal; raises DiagnosticsError.

    `generations` (from `eve dev`) is served instead of loading `root` now, and
    `lifespans` run with the server (the dev loop is one).
    """
    from eve_build.serve.extra import require_serve_extra

    require_serve_extra()
    import uvicorn

    sock = bind_socket(host, port)
    try:
        bound = sock.getsockname()
        url = f"http://{host}:{bound[1]}"
        announce = [_announce(url, on_ready)] if on_ready else []
        app = _build_app(root, host, environ=environ, channel_timeout=channel_timeout,
                         lifespans=[*lifespans, *announce], host=generations,
                         extensions=extensions, max_body=max_body)
        config = uvicorn.Config(app, log_level=log_level, lifespan="on", log_config=None,
                                access_log=access_log,
                                timeout_graceful_shutdown=int(GRACEFUL_SECONDS))
        caught: list[str] = []
        with _quiet_signals(caught):
            uvicorn.Server(config).run(sockets=[sock])
    finally:
        sock.close()
    return Served(url, caught[-1] if caught else None)


def _build_app(root: Path, address: str, **options: Any) -> Starlette:
    """The served app; with the MCP SDK installed, the agent's MCP server is at `/mcp`."""
    if importlib.util.find_spec("mcp") is None:
        from eve_build.serve.app import build_app

        return build_app(root, **options)
    from eve_build.mcp.http import create_app_with_mcp

    return create_app_with_mcp(root, address=address, **options)


def _announce(url: str, on_ready: Callable[[str], None]) -> Lifespan:
    @contextlib.asynccontextmanager
    async def ready(_app: object) -> AsyncIterator[None]:
        on_ready(url)
        yield

    return ready


@contextlib.contextmanager
def _quiet_signals(caught: list[str]) -> Iterator[None]:
    """While serving, SIGINT/SIGTERM (re-raised by uvicorn after its shutdown) are recorded."""

    def record(number: int, _frame: FrameType | None) -> None:
        caught.append(signal.Signals(number).name)

    saved = {number: signal.signal(number, record) for number in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for number, handler in saved.items():
            signal.signal(number, handler)
