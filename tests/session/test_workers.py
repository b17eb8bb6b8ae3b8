"""`eve serve --workers 2` on one store: no lost update, SIGKILL of a worker mid-request,
graceful SIGTERM; `--no-schedules`."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from pathlib import Path

import httpx

from eve_build.session.stores import open_session_store
from tests.session.servers import find_workers, start_cli, start_replica, stopping
from tests.session.test_replicas import _hammer


def _slow_requests(url: str, count: int, seconds: float) -> list[int | None]:
    """`count` concurrent POST /slow; each answer's hits, or None when the connection broke."""
    results: list[int | None] = [None] * count

    def run(index: int) -> None:
        try:
            response = httpx.post(f"{url}/slow", params={"seconds": str(seconds)}, timeout=20)
            results[index] = response.json()["hits"]
        except httpx.TransportError:
            pass

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    return results


def _wait_for_workers(parent: int, count: int, without: int | None = None) -> list[int]:
    """The parent's workers once there are `count` of them (none of them `without`)."""
    deadline = time.monotonic() + 20
    while True:
        workers = find_workers(parent)
        if len(workers) == count and without not in workers:
            return workers
        assert time.monotonic() < deadline, f"workers: {workers}"
        time.sleep(0.1)


def test_workers_share_the_store_and_a_killed_worker_loses_nothing_committed(
        counter_root: Path, tmp_path: Path) -> None:
    store = str(tmp_path / "workers.sqlite3")
    server = start_cli(counter_root, store, "--workers", "2", "--no-schedules")
    with stopping(server):
        workers = _wait_for_workers(server.process.pid, 2)
        assert sorted(_hammer([server], per_thread=20)) == list(range(1, 41))

        victim = workers[0]
        threading.Timer(0.5, os.kill, (victim, signal.SIGKILL)).start()
        answered = [hits for hits in _slow_requests(server.url, 4, 1.5) if hits is not None]
        # the killed worker's requests broke before updating; the others committed
        assert httpx.get(f"{server.url}/count", timeout=10).json() == {
            "hits": 40 + len(answered)}
        assert sorted(answered) == list(range(41, 41 + len(answered)))
        assert victim not in _wait_for_workers(server.process.pid, 2, without=victim)

        # SIGTERM drains: a request in flight finishes and commits
        expected = 40 + len(answered) + 1
        threading.Timer(0.4, server.process.send_signal, (signal.SIGTERM,)).start()
        assert _slow_requests(server.url, 1, 1.0) == [expected]
        assert server.process.wait(timeout=20) == 0
        assert server.process.stdout is not None
        assert json.loads(server.process.stdout.readline())["signal"] == "SIGTERM"

    again = start_cli(counter_root, store, "--workers", "2", "--no-schedules")
    with stopping(again):
        assert httpx.get(f"{again.url}/count", timeout=10).json() == {"hits": expected}
        assert again.stop() == 0


def test_no_schedules_leaves_due_times_alone(counter_root: Path, tmp_path: Path) -> None:
    store = str(tmp_path / "quiet.sqlite3")
    server = start_replica(counter_root, store, time.time(), 60.0, schedules=False)
    with stopping(server):
        time.sleep(3.5)  # three simulated minutes
        assert server.stop() == 0
    opened = open_session_store(tmp_path, url=f"sqlite://{store}")
    assert opened.schedule_runs("serve/agent").last_runs() == {}
    assert "ticks" not in opened.state_scope("serve/agent").read_all()
    opened.close()
