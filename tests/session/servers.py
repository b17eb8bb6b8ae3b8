"""Real `eve serve` processes on one store, for the replica tests.

`start_replica` runs the server in a subprocess through `run_server` with a clock the
test moves (a `ManualClock`, shared by every replica, so they agree on what time it is)
or an accelerated one (SPEED simulated seconds per real second from a shared start), and
reads the URL it prints; `start_cli` runs `eve serve` itself. Both are stopped by the caller.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from tests.conftest import REPO

REPLICA = """
import asyncio, json, sys, time
from datetime import datetime, timedelta
from pathlib import Path
from eve_build.serve.server import run_server

root, schedules = Path(sys.argv[1]), sys.argv[4] == "schedules"
start = datetime(2026, 12, 1, 9, 0, 10).astimezone()

if sys.argv[2] == "file":
    # The test moves the clock (seconds after `start`, in a file); the scheduler's sleep
    # ends when the clock moved since the scheduler last read it, whatever the real time.
    # What each task last read is kept apart, so that only the scheduler's own reading
    # counts for its sleep.
    clock_file, seen = Path(sys.argv[3]), {}

    def offset():
        return float(clock_file.read_text())

    def reader():
        try:
            return id(asyncio.current_task())
        except RuntimeError:  # a thread without a loop
            return None

    def clock():
        value = offset()
        seen[reader()] = value
        return start + timedelta(seconds=value)

    async def sleep(seconds):
        task = reader()
        while offset() == seen.get(task):
            await asyncio.sleep(0.01)
else:
    t0, speed = float(sys.argv[2]), float(sys.argv[3])

    def clock():
        return start + timedelta(seconds=(time.time() - t0) * speed)

    async def sleep(seconds):
        await asyncio.sleep(seconds / speed)

served = run_server(root, port=0, clock=clock, sleep=sleep, access_log=False,
                    schedules=schedules,
                    log_level="warning",
                    on_ready=lambda url: print(json.dumps({"url": url}), flush=True))
print(json.dumps({"stopped": served.signal}), flush=True)
"""


@dataclass
class Server:
    process: subprocess.Popen[str]
    url: str

    def stop(self, sig: int = signal.SIGTERM) -> int:
        if self.process.poll() is None:
            self.process.send_signal(sig)
        return self.process.wait(timeout=60)


def _wait_ready(process: subprocess.Popen[str], key: str = "url") -> str:
    assert process.stdout is not None
    line = process.stdout.readline()
    assert line, f"the server did not start: {process.stderr.read() if process.stderr else ''}"
    url = str(json.loads(line)[key])
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # the socket listens; wait until the app answers
        try:
            if httpx.get(f"{url}/.eve/health", timeout=2).status_code == 200:
                return url
        except httpx.TransportError:
            pass
        time.sleep(0.05)
    raise AssertionError("the server never answered /.eve/health")


def _env(store: str, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    return {**os.environ, "EVE_SESSION_STORE": store, "PYTHONPATH": str(REPO), **(extra or {})}


class ManualClock:
    """A clock the test moves: seconds after 2026-12-01 09:00:10 (local), kept in a file
    that every replica started with it reads; nothing moves it but `set`."""

    def __init__(self, path: Path, seconds: float = 0.0) -> None:
        self.path = path
        self.set(seconds)

    def set(self, seconds: float) -> None:
        staged = self.path.with_name(self.path.name + ".new")
        staged.write_text(repr(float(seconds)))
        staged.replace(self.path)  # a replica never reads a half-written value


def start_replica(root: Path, store: str, t0: float | ManualClock, speed: float = 0.0, *,
                  schedules: bool = True) -> Server:
    """A replica whose clock runs `speed` times real time from `t0`, or is `t0` (a
    ManualClock the test moves)."""
    timing = ["file", str(t0.path)] if isinstance(t0, ManualClock) else [str(t0), str(speed)]
    process = subprocess.Popen([sys.executable, "-c", REPLICA, str(root), *timing,
                                "schedules" if schedules else "no-schedules"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=_env(store))
    return Server(process, _wait_ready(process))


def start_cli(root: Path, store: str, *args: str, env: Mapping[str, str] | None = None
              ) -> Server:
    process = subprocess.Popen([sys.executable, "-m", "eve_build", "serve", "--path", str(root),
                                "--port", "0", "--json", "--no-access-log", *args],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=_env(store, env))
    return Server(process, _wait_ready(process))


@contextmanager
def stopping(*servers: Server) -> Iterator[None]:
    """Kill whatever is still running at the end, whatever happened."""
    try:
        yield
    finally:
        for server in servers:
            if server.process.poll() is None:
                server.process.kill()
                server.process.wait(timeout=10)


def find_workers(parent: int) -> list[int]:
    """The uvicorn worker processes of `parent` (spawned interpreters)."""
    children = Path(f"/proc/{parent}/task/{parent}/children").read_text().split()
    return [int(pid) for pid in children
            if b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes()]
