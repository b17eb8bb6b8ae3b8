"""`eve serve --workers N`: N uvicorn worker processes on one socket and one store.

The parent binds the socket, checks that the agent loads and the store opens (so a
mistake is a diagnostic at start-up, not N crashing workers), then runs uvicorn's
process supervisor: each worker is a fresh `spawn`ed interpreter that builds the app
with `create_worker_app` from the options in EVE_SERVE_WORKER, opens its own
connection to the store and serves until SIGTERM. SIGTERM or SIGINT to the parent
stops every worker gracefully (requests in flight finish, up to GRACEFUL_SECONDS); a
worker that dies is replaced. What a worker committed is in the store, so a worker
killed with SIGKILL mid-request loses only that request.

Workers never outlive the parent: each binds itself to it with the build workers'
lifeline (eve_build.engine.lifeline: the kernel's parent-death SIGKILL on Linux, and a
thread that watches the parent pid), so a parent killed with SIGKILL leaves no worker
serving on the port. N is at most MAX_WORKERS (4 per CPU core), and a SIGINT or SIGTERM
that arrives while the workers are being started stops the starting at once.
"""

from __future__ import annotations

import json
import os
import socket
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from uvicorn.supervisors.multiprocess import Multiprocess

WORKER_ENV = "EVE_SERVE_WORKER"
FACTORY = "eve_build.serve.server:create_worker_app"  # it imports this module
WORKERS_PER_CORE = 4
MAX_WORKERS = WORKERS_PER_CORE * (os.cpu_count() or 1)
"""The most workers `eve serve --workers` starts (docs/deploying.md)."""


def check_workers(workers: int) -> None:
    """Raise the usage error (exit 2) for a count of workers past MAX_WORKERS."""
    from eve_build.serve.errors import serve_error

    if workers > MAX_WORKERS:
        raise serve_error("serve/workers-invalid", f"--workers {workers} is more than the "
                          f"maximum of {MAX_WORKERS} ({WORKERS_PER_CORE} per CPU core on "
                          "this machine)", f"pass `--workers {MAX_WORKERS}` or fewer, or run "
                          "more replicas on one store (docs/deploying.md)", usage=True)


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
    allow_hosts: list[str] = field(default_factory=list)  # `--allow-host`
    allow_origins: list[str] = field(default_factory=list)  # `--allow-origin`
    parent: int | None = None  # the supervisor's pid: a worker dies with it


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

    check_workers(workers)
    os.environ[WORKER_ENV] = json.dumps(asdict(options) | {"parent": os.getpid()})
    settings = uvicorn.Config(FACTORY, factory=True, workers=workers, lifespan="on",
                              log_config=None, **config)
    caught: list[str] = []
    supervisor_type(caught)(settings, sockets=[sock]).run()
    return caught[-1] if caught else None


def supervisor_type(caught: list[str]) -> type[Multiprocess]:
    """uvicorn's supervisor, recording the stopping signal in `caught`, checking for one
    before each worker it starts, and never growing past MAX_WORKERS."""
    from uvicorn.supervisors.multiprocess import Multiprocess, Process

    class Supervisor(Multiprocess):
        def init_processes(self) -> None:
            """Start the workers one by one; a SIGINT/SIGTERM stops the starting (uvicorn
            would only look at its signals once every worker is started)."""
            for _ in range(self.processes_num):
                if _stop_queued(self.signal_queue):
                    return
                process = Process(self.config, self.sockets)
                process.start()
                self.processes.append(process)

        def handle_ttin(self) -> None:  # SIGTTIN adds a worker: never past the maximum
            if self.processes_num < MAX_WORKERS:
                super().handle_ttin()

        def handle_int(self) -> None:
            caught.append("SIGINT")
            super().handle_int()

        def handle_term(self) -> None:
            caught.append("SIGTERM")
            super().handle_term()

    return Supervisor


def _stop_queued(queue: list[int]) -> bool:
    """Whether a SIGINT or SIGTERM waits in uvicorn's signal queue."""
    import signal

    return signal.SIGINT in queue or signal.SIGTERM in queue
