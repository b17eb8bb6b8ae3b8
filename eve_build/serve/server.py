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

    from eve_build.serve.app import Lifespan, Sleep
    from eve_build.serve.generation import Host
    from eve_build.serve.scheduler import Clock

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
    access_log: bool = True, extensions: Sequence[Path] = (), approve: bool = False,
    workers: int = 1, schedules: bool = True, clock: Clock | None = None,
    sleep: Sleep | None = None, max_body: int = MAX_BODY,
    allow_hosts: Sequence[str] = (), allow_origins: Sequence[str] = (),
) -> Served:
    """Serve `root`'s agent until a signal; raises DiagnosticsError.

    `generations` (from `eve dev`) is served instead of loading `root` now, and
    `lifespans` run with the server (the dev loop is one). `approve` approves every
    call over `/mcp` of a tool that asks for approval (docs/mcp.md). Without
    `generations`, the agent's state lives in the session store
    (eve_build.serve.durable). `workers` > 1 serves from that many processes
    (eve_build.serve.processes); `schedules` False leaves schedules to
    `eve schedule run` (a platform's scheduler). `allow_hosts` and `allow_origins` add to
    the admission policy's defaults (eve_build.serve.admission).
    """
    import os

    from eve_build.serve.admission import derive_admission
    from eve_build.serve.durable import open_served_store
    from eve_build.serve.extra import require_serve_extra

    require_serve_extra()
    import uvicorn

    admission = derive_admission(host, allow_hosts=allow_hosts, allow_origins=allow_origins,
                                 environ=os.environ)  # a bad value stops it before binding
    if workers > 1:
        from eve_build.serve.processes import check_workers

        check_workers(workers)  # before anything binds or loads
    sock = bind_socket(host, port)
    try:
        bound = sock.getsockname()
        url = f"http://{host}:{bound[1]}"
        if workers > 1:
            return Served(url, _serve_workers(
                root, sock, url, workers, on_ready, host=host, extensions=extensions,
                channel_timeout=channel_timeout, schedules=schedules, approve=approve,
                max_body=max_body, log_level=log_level, access_log=access_log,
                allow=(list(allow_hosts), list(allow_origins))))
        announce = [_announce(url, on_ready)] if on_ready else []
        store = open_served_store(root, environ) if generations is None else None
        try:
            timing = {"clock": clock} if clock else {}
            app = build_served_app(root, host, environ=environ,
                                   channel_timeout=channel_timeout,
                                   lifespans=[*lifespans, *announce], host=generations,
                                   extensions=extensions, store=store, schedules=schedules,
                                   sleep=sleep, approve=approve, max_body=max_body,
                                   admission=admission, **timing)
        except BaseException:
            if store is not None:
                store.close()
            raise
        config = uvicorn.Config(app, log_level=log_level, lifespan="on", log_config=None,
                                access_log=access_log,
                                timeout_graceful_shutdown=int(GRACEFUL_SECONDS))
        caught: list[str] = []
        with _quiet_signals(caught):
            uvicorn.Server(config).run(sockets=[sock])
    finally:
        sock.close()
    return Served(url, caught[-1] if caught else None)


def _serve_workers(root: Path, sock: socket.socket, url: str, workers: int,
                   on_ready: Callable[[str], None] | None, *, host: str,
                   extensions: Sequence[Path], channel_timeout: float, schedules: bool,
                   approve: bool = False, max_body: int = MAX_BODY,
                   allow: tuple[list[str], list[str]] = ([], []),
                   **config: Any) -> str | None:
    from eve_build.serve.processes import WorkerOptions, check_servable, run_workers

    check_servable(root, list(extensions))
    options = WorkerOptions(str(root.resolve()), host, channel_timeout,
                            [str(p.resolve()) for p in extensions], schedules, approve,
                            max_body, allow_hosts=allow[0], allow_origins=allow[1])
    if on_ready is not None:  # the socket listens: connections wait for the first worker
        on_ready(url)
    return run_workers(sock, workers, options, timeout_graceful_shutdown=int(GRACEFUL_SECONDS),
                       **config)


def build_served_app(root: Path, address: str, *, approve: bool = False,
                     **options: Any) -> Starlette:
    """The served app; with the MCP SDK installed, the agent's MCP server is at `/mcp`."""
    if importlib.util.find_spec("mcp") is None:
        from eve_build.serve.app import build_app

        return build_app(root, **options)
    from eve_build.serve.mcp_app import create_app_with_mcp

    return create_app_with_mcp(root, address=address, approve=approve, **options)


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


def create_worker_app() -> Starlette:
    """The uvicorn factory each worker calls: the served app on its own store connection."""
    import json
    import logging
    import os

    from eve_build.engine.lifeline import bind_to_parent
    from eve_build.serve.admission import derive_admission
    from eve_build.serve.durable import open_served_store
    from eve_build.serve.processes import WORKER_ENV, WorkerOptions

    options = WorkerOptions(**json.loads(os.environ[WORKER_ENV]))
    if options.parent is not None:
        bind_to_parent(options.parent)  # the parent's SIGKILL must not leave us serving
    logging.basicConfig(level=logging.INFO, format="%(levelname)s: %(message)s")
    root = Path(options.root)
    admission = derive_admission(options.address, allow_hosts=options.allow_hosts,
                                 allow_origins=options.allow_origins, environ=os.environ)
    store = open_served_store(root)
    try:
        return build_served_app(root, options.address, store=store,
                                channel_timeout=options.channel_timeout,
                                extensions=[Path(p) for p in options.extensions],
                                schedules=options.schedules, approve=options.approve,
                                admission=admission,
                                **({"max_body": options.max_body} if options.max_body else {}))
    except BaseException:
        store.close()
        raise
