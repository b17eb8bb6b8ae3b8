"""Two `eve serve` processes on one store (SQLite, then PostgreSQL), for real: concurrent
state updates, a schedule due every (accelerated) minute, SIGKILL mid-request, restart."""

from __future__ import annotations

import signal
import threading
import time
from pathlib import Path

import httpx
import pytest

from eve_build.session.stores import open_session_store
from tests.session.servers import Server, start_replica, stopping

SPEED = 30.0  # simulated seconds per real second: a due time every 2 s


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
    t0 = time.time()
    first, second = start_replica(counter_root, store_url, t0, SPEED), \
        start_replica(counter_root, store_url, t0, SPEED)
    with stopping(first, second):
        answers = _hammer([first, second], per_thread=15)
        # every update saw the one before it: 60 answers, each value once
        assert sorted(answers) == list(range(1, 61))

        # SIGKILL the first in the middle of a request that would update after 2 s
        with httpx.Client(timeout=10) as client:
            threading.Timer(0.5, first.process.send_signal, (signal.SIGKILL,)).start()
            with pytest.raises(httpx.TransportError):
                client.post(f"{first.url}/slow", params={"seconds": "2"})
            assert first.process.wait(timeout=10) == -signal.SIGKILL
            assert client.get(f"{second.url}/count").json() == {"hits": 60}
            assert client.post(f"{second.url}/count").json() == {"hits": 61}
        time.sleep(max(0.0, t0 + 8.5 - time.time()))  # let a few due times pass
        assert second.stop() == 0

    store = open_session_store(tmp_path, url=_url(store_url))
    state = store.state_scope("project/demo-agent").read_all()
    runs = store.schedule_runs("project/demo-agent").history("minutely")
    store.close()
    assert state["hits"] == 61
    due = [r.due_at for r in runs]
    assert len(due) >= 3 and len(set(due)) == len(due)
    unfinished = [r for r in runs if r.status != "ok"]
    # a run cut by the SIGKILL (a window of milliseconds) stays `running`, of the first
    assert all(r.status == "running" and r.runner.endswith(f":{first.process.pid}")
               for r in unfinished) and len(unfinished) <= 1
    # each due time ran once, by one of the two: never more updates than claims
    assert len(runs) - len(unfinished) <= state["ticks"] <= len(runs)
    assert {r.runner.rsplit(":", 1)[1] for r in runs} <= {str(first.process.pid),
                                                         str(second.process.pid)}
    minutes = [int(d[14:16]) for d in due]
    assert minutes == list(range(minutes[0], minutes[0] + len(minutes)))  # none missed

    # both again, on the same store: the state is there
    t0 = time.time()
    again = [start_replica(counter_root, store_url, t0, SPEED) for _ in range(2)]
    with stopping(*again):
        for server in again:
            assert httpx.get(f"{server.url}/count", timeout=10).json() == {"hits": 61}
        assert httpx.post(f"{again[0].url}/count", timeout=10).json() == {"hits": 62}
        assert httpx.get(f"{again[1].url}/count", timeout=10).json() == {"hits": 62}
        assert [server.stop() for server in again] == [0, 0]


def _url(store: str) -> str:
    return store if "://" in store else f"sqlite://{store}"
