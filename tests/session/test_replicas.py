"""Two `eve serve` processes on one store (SQLite, then PostgreSQL), for real: concurrent
state updates, a schedule due every minute of a clock the test moves, SIGKILL mid-request,
restart."""

from __future__ import annotations

import signal
import threading
from pathlib import Path

import httpx
import pytest

from eve_build.session.runs import ScheduleRunRecord
from eve_build.session.stores import open_session_store
from tests.session.servers import ManualClock, Server, start_replica, stopping
from tests.waiting import wait_until


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "shared.sqlite3")
    return str(request.getfixturevalue("postgres_url"))


def _hammer(servers: list[Server], per_thread: int) -> list[int]:
    """Two threads per server, each POSTing /count `per_thread` times; the answers."""
    answers: list[int] = []
    lock = threading.Lock()

    def run(url: str) -> None:
        with httpx.Client(base_url=url, timeout=30) as client:
            for _ in range(per_thread):
                value = client.post("/count").json()["hits"]
                with lock:
                    answers.append(value)

    threads = [threading.Thread(target=run, args=(s.url,)) for s in servers for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return answers


def test_two_servers_share_state_and_schedules_and_survive_sigkill(
        counter_root: Path, store_url: str, tmp_path: Path) -> None:
    # The replicas' clock moves only when the test moves it (09:00:10 at 0): a due time
    # passes when the test says so, and the next one only after its run is in the store.
    clock = ManualClock(tmp_path / "clock")
    first, second = start_replica(counter_root, store_url, clock), \
        start_replica(counter_root, store_url, clock)
    minute = 0

    def tick() -> None:
        """Move the clock to the next due time (09:01:00, 09:02:00...) and wait until
        its run, by one of the replicas, finished in the store."""
        nonlocal minute
        minute += 1
        clock.set(50 + 60 * (minute - 1))
        wait_until(lambda: [r.status for r in _runs(store_url, tmp_path)] == ["ok"] * minute,
                   f"the run due at 09:{minute:02d}:00 to finish")

    with stopping(first, second):
        answers = _hammer([first, second], per_thread=15)
        # every update saw the one before it: 60 answers, each value once
        assert sorted(answers) == list(range(1, 61))
        for _ in range(3):  # both replicas schedule: each due time runs once
            tick()

        # SIGKILL the first in the middle of a request that would update after 600 s
        marker = tmp_path / "slow-in-flight"
        with httpx.Client(timeout=60) as client:
            broken: list[BaseException] = []

            def slow() -> None:
                try:
                    client.post(f"{first.url}/slow",
                                params={"seconds": "600", "marker": str(marker)})
                except httpx.TransportError as exc:
                    broken.append(exc)

            request = threading.Thread(target=slow)
            request.start()
            wait_until(marker.exists, "the slow request to reach the first server")
            first.process.send_signal(signal.SIGKILL)
            request.join(timeout=60)
            assert not request.is_alive() and len(broken) == 1, "the request broke"
            assert first.process.wait(timeout=60) == -signal.SIGKILL
            assert client.get(f"{second.url}/count").json() == {"hits": 60}
            assert client.post(f"{second.url}/count").json() == {"hits": 61}
        for _ in range(2):  # the survivor runs the next due times alone
            tick()
        assert second.stop() == 0

    store = open_session_store(tmp_path, url=_url(store_url))
    state = store.state_scope("project/demo-agent").read_all()
    store.close()
    runs = _runs(store_url, tmp_path)
    assert state["hits"] == 61
    # each due time ran once, by one of the two, none missed, none twice
    assert [r.due_at[11:16] for r in runs] == ["09:01", "09:02", "09:03", "09:04", "09:05"]
    assert [r.status for r in runs] == ["ok"] * 5
    assert state["ticks"] == 5
    pids = [r.runner.rsplit(":", 1)[1] for r in runs]
    assert set(pids[:3]) <= {str(first.process.pid), str(second.process.pid)}
    assert pids[3:] == [str(second.process.pid)] * 2

    # both again, on the same store: the state is there
    again = [start_replica(counter_root, store_url, clock) for _ in range(2)]
    with stopping(*again):
        for server in again:
            assert httpx.get(f"{server.url}/count", timeout=10).json() == {"hits": 61}
        assert httpx.post(f"{again[0].url}/count", timeout=10).json() == {"hits": 62}
        assert httpx.get(f"{again[1].url}/count", timeout=10).json() == {"hits": 62}
        assert [server.stop() for server in again] == [0, 0]


def _url(store: str) -> str:
    return store if "://" in store else f"sqlite://{store}"


def _runs(store_url: str, tmp_path: Path) -> list[ScheduleRunRecord]:
    """The `minutely` schedule's runs in the store, oldest first."""
    store = open_session_store(tmp_path, url=_url(store_url))
    try:
        return store.schedule_runs("project/demo-agent").history("minutely")
    finally:
        store.close()
