"""`eve serve --workers N`: N uvicorn worker processes on one socket and one store.

The parent binds the socket, checks that the agent loads and the store opens (so a
mistake is a diagnostic at start-up, not N crashing workers), then runs uvicorn's
process supervisor: each worker is a fresh `spawn`ed interpreter that builds the app
with `create_worker_app` from the options in EVE_SERVE_WORKER, opens its own
connection to the store and serves until SIGTERM. SIGTERM or SIGINT to the parent
stops every worker gracefully (requests in flight finish, up to GRACEFUL_SECONDS); a
worker that dies is replaced. What a worker committed is in the store, so a worker
killed with SIGKILL mid-request loses only that request.
"""

from __future__ import annotations

import json
import os
import socket
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

WORKER_ENV = "EVE_SERVE_WORKER"
FACTORY = "eve_build.serve.server:create_worker_app"  # it imports this module


@dataclass(frozen=True)
class WorkerOptions:
    """What every worker builds its app from (JSON in EVE_SERVE_WORKER)."""

    root: str
    address: str
    channel_timeout: float
    extensions: list[str]
    schedules: bool
    approve: bool = False
    max_body: int | None = None  # None: the app's default (eve_build.serve.barrier)


def check_servable(root: Path, extensions: list[Path]) -> None:
    """Open the store and load the agent once, then close both (raises DiagnosticsError)."""
    from eve_build.serve.durable import open_served_store, served_states
    from eve_build.serve.generation import open_generation

    store = open_served_store(root)
    try:
        open_generation(root, extensions=extensions,
                        **served_states(store, root)).agent.close()
    finally:
        store.close()


def run_workers(sock: socket.socket, workers: int, options: WorkerOptions,
                **config: Any) -> str | None:
    """Supervise `workers` processes serving on `sock` until SIGINT/SIGTERM; the signal."""
    import uvicorn
    from uvicorn.supervisors.multiprocess import Multiprocess

    caught: list[str] = []

    class Supervisor(Multiprocess):
        def handle_int(self) -> None:
            caught.append("SIGINT")
            super().handle_int()

        def handle_term(self) -> None:
            caught.append("SIGTERM")
            super().handle_term()

    os.environ[WORKER_ENV] = json.dumps(asdict(options))
    settings = uvicorn.Config(FACTORY, factory=True, workers=workers, lifespan="on",
                              log_config=None, **config)
    Supervisor(settings, sockets=[sock]).run()
    return caught[-1] if caught else None
