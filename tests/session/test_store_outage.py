"""PostgreSQL stopped and started again under a real `eve serve --workers 2`: while it is
down the session routes and channels answer 503 with `Retry-After` and readiness says
so (liveness does not); once it is back, the first request on every worker succeeds."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.session.postgres_server import PostgresServer, find_bin_dir, running_postgres
from tests.session.servers import Server, start_cli, stopping

TIMEOUT = 60.0
ROUNDS = 12  # requests on new connections after a restart: every worker gets some


@pytest.fixture
def own_postgres() -> Iterator[PostgresServer]:
    """A PostgreSQL server of this test alone: it is stopped and started again."""
    bin_dir = find_bin_dir()
    if bin_dir is None:
        pytest.skip("no PostgreSQL server binaries (initdb, pg_ctl, postgres): install the "
                    "`postgresql` package")
    with running_postgres(bin_dir) as server:
        yield server


def _post(url: str, path: str, body: dict[str, str] | None = None) -> httpx.Response:
    """One request on a connection of its own (so it may land on any worker)."""
    return httpx.post(f"{url}{path}", json=body, timeout=TIMEOUT)


def _message(server: Server, session: str, text: str) -> httpx.Response:
    return _post(server.url, f"/.eve/v1/sessions/{session}/messages", {"text": text})


def test_a_restarted_database_is_503_while_down_and_serves_the_first_request_after(
        counter_root: Path, own_postgres: PostgresServer) -> None:
    url = own_postgres.create_database(f"eve_{uuid.uuid4().hex[:8]}")
    server = start_cli(counter_root, url, "--workers", "2", "--no-schedules")
    with stopping(server):
        created = _post(server.url, "/.eve/v1/sessions", {"model": "test"})
        assert created.status_code == 201, created.text
        session = created.json()["id"]
        assert _message(server, session, "hello").status_code == 200
        assert httpx.get(f"{server.url}/.eve/ready", timeout=TIMEOUT).json()["status"] == \
            "ready"

        # a restart nobody saw: every worker's connection was ended by the server
        own_postgres.stop("fast")
        own_postgres.start()
        answers = [_post(server.url, "/count") for _ in range(ROUNDS)]
        assert [a.status_code for a in answers] == [200] * ROUNDS, \
            [a.text for a in answers if a.status_code != 200]
        assert sorted(a.json()["hits"] for a in answers) == list(range(1, ROUNDS + 1))
        replies = [_message(server, session, f"after {n}") for n in range(4)]
        assert [r.status_code for r in replies] == [200] * 4, [r.text for r in replies]

        # down: 503 with Retry-After and the code, readiness 503, liveness 200
        own_postgres.stop("fast")
        down = [_message(server, session, "while down"),
                _post(server.url, "/.eve/v1/sessions", {"model": "test"}),
                _post(server.url, "/count")]
        ready = httpx.get(f"{server.url}/.eve/ready", timeout=TIMEOUT)
        health = httpx.get(f"{server.url}/.eve/health", timeout=TIMEOUT)
        assert [r.status_code for r in down] == [503, 503, 503], [r.text for r in down]
        assert all(r.headers["Retry-After"].isdigit() for r in down)
        for answer in down:
            assert answer.json()["error"]["code"] == "session/store-unreachable"
        assert down[2].json()["error"]["channel"] == "count"
        assert (ready.status_code, ready.json()["status"]) == (503, "store-unavailable")
        assert ready.json()["error"]["code"] == "session/store-unreachable"
        assert ready.headers["Retry-After"].isdigit()
        assert health.status_code == 200

        own_postgres.start()
        back = [_post(server.url, "/count") for _ in range(ROUNDS)]
        assert [a.status_code for a in back] == [200] * ROUNDS, [a.text for a in back]
        assert _message(server, session, "back").status_code == 200
        assert httpx.get(f"{server.url}/.eve/ready", timeout=TIMEOUT).status_code == 200
        assert server.stop() == 0
    assert "Traceback" not in (server.process.stderr.read() if server.process.stderr else "")
