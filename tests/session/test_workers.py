"""`eve serve --workers 2` on one store: no lost update, SIGKILL of a worker mid-request,
graceful SIGTERM; `--no-schedules`."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

from eve_build.session.store import open_session_store
from tests.conftest import REPO
from tests.session.servers import ManualClock, find_workers, start_cli, start_replica, stopping
from tests.session.test_replicas import _hammer
from tests.waiting import wait_until


def _slow_requests(url: str, count: int, seconds: float,
                   marker: Path | None = None) -> list[int | None]:
    """`count` concurrent POST /slow; each answer's hits, or None when the connection broke.
    With `marker`, each handler creates that file when it starts."""
    results: list[int | None] = [None] * count
    params = {"seconds": str(seconds), **({"marker": str(marker)} if marker else {})}

    def run(index: int) -> None:
        try:
            response = httpx.post(f"{url}/slow", params=params, timeout=60)
            results[index] = response.json()["hits"]
        except httpx.TransportError:
            pass

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=90)
    return results


def _wait_for_workers(parent: int, count: int, without: int | None = None) -> list[int]:
    """The parent's workers once there are `count` of them (none of them `without`)."""
    deadline = time.monotonic() + 60
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

        # SIGTERM drains: a request in flight (its handler started) finishes and commits
        expected = 40 + len(answered) + 1
        marker = tmp_path / "slow-in-flight"
        drained: list[int | None] = []
        request = threading.Thread(target=lambda: drained.extend(
            _slow_requests(server.url, 1, 1.0, marker=marker)))
        request.start()
        wait_until(marker.exists, "the slow request to reach a worker")
        server.process.send_signal(signal.SIGTERM)
        request.join(timeout=90)
        assert drained == [expected]
        assert server.process.wait(timeout=20) == 0
        assert server.process.stdout is not None
        assert json.loads(server.process.stdout.readline())["signal"] == "SIGTERM"

    again = start_cli(counter_root, store, "--workers", "2", "--no-schedules")
    with stopping(again):
        assert httpx.get(f"{again.url}/count", timeout=10).json() == {"hits": expected}
        assert again.stop() == 0


def test_no_schedules_leaves_due_times_alone(counter_root: Path, tmp_path: Path) -> None:
    # Two replicas on one clock the test moves: the one with schedules shows that the due
    # times did pass (its runs are in its store); the one without never ran any.
    clock = ManualClock(tmp_path / "clock")
    stores = {name: str(tmp_path / f"{name}.sqlite3") for name in ("quiet", "control")}
    quiet = start_replica(counter_root, stores["quiet"], clock, schedules=False)
    control = start_replica(counter_root, stores["control"], clock)
    with stopping(quiet, control):
        for minute in range(1, 4):  # 09:01, 09:02, 09:03
            clock.set(50 + 60 * (minute - 1))
            # finished, not only claimed: a run still going when its next due time comes
            # makes the scheduler skip that one (by design)
            wait_until(lambda minute=minute: list(_runs(tmp_path, stores["control"]).values())
                       == ["ok"] * minute, f"the control replica's run due at 09:{minute:02d}:00")
        assert quiet.stop() == 0
        assert control.stop() == 0
    assert _runs(tmp_path, stores["quiet"]) == {}
    opened = open_session_store(tmp_path, url=f"sqlite://{stores['quiet']}")
    assert "ticks" not in opened.state_scope("project/demo-agent").read_all()
    opened.close()


def _runs(tmp_path: Path, store: str) -> dict[str, str]:
    """The due times of the `minutely` schedule the store holds, with their status."""
    opened = open_session_store(tmp_path, url=f"sqlite://{store}")
    try:
        return {r.due_at: r.status
                for r in opened.schedule_runs("project/demo-agent").history("minutely")}
    finally:
        opened.close()


def _gone(pid: int) -> bool:
    """Whether `pid` has ended (a zombie nobody reaps counts as ended)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rpartition(")")[2].split()[0] == "Z"


def _refuses(url: str) -> bool:
    try:
        httpx.get(f"{url}/.eve/health", timeout=5)
    except httpx.ConnectError:
        return True
    except httpx.TransportError:
        return False
    return False


def test_workers_end_with_a_parent_killed_with_sigkill(counter_root: Path,
                                                       tmp_path: Path) -> None:
    server = start_cli(counter_root, str(tmp_path / "orphans.sqlite3"), "--workers", "2",
                       "--no-schedules")
    with stopping(server):
        workers = _wait_for_workers(server.process.pid, 2)
        try:
            server.process.kill()
            server.process.wait(timeout=20)
            deadline = time.monotonic() + 60
            while not (all(_gone(pid) for pid in workers) and _refuses(server.url)):
                assert time.monotonic() < deadline, "the workers went on serving"
                time.sleep(0.1)
        finally:
            for pid in workers:
                if not _gone(pid):
                    os.kill(pid, signal.SIGKILL)


def test_workers_past_the_maximum_are_a_usage_error(counter_root: Path) -> None:
    from eve_build.serve.processes import MAX_WORKERS

    done = subprocess.run([sys.executable, "-m", "eve_build", "serve", "--path",
                           str(counter_root), "--port", "0", "--workers",
                           str(MAX_WORKERS + 1)], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.returncode == 2, done.stderr
    assert "serve/workers-invalid" in done.stderr
    assert f"maximum of {MAX_WORKERS}" in done.stderr
    assert "serving on" not in done.stdout


def test_a_signal_while_starting_workers_stops_the_starting() -> None:
    import uvicorn

    from eve_build.serve.processes import supervisor_type

    saved = {number: signal.getsignal(number) for number in signal.Signals}
    caught: list[str] = []
    try:
        supervisor = supervisor_type(caught)(
            uvicorn.Config("eve_build.serve.server:create_worker_app", workers=3),
            sockets=[])
        supervisor.signal_queue.append(signal.SIGINT)
        supervisor.init_processes()
        assert supervisor.processes == []
        supervisor.handle_signals()
        assert caught == ["SIGINT"]
        assert supervisor.should_exit.is_set()
    finally:
        for number, handler in saved.items():
            if handler is not None:
                with contextlib.suppress(OSError, ValueError):
                    signal.signal(number, handler)
