"""The PostgreSQL store: the same interface and guarantees as SQLite, on a real server."""

from __future__ import annotations

import asyncio
import socket
import sys
import threading
from pathlib import Path

import httpx
import psycopg
import pytest

from eve_build.errors import DiagnosticsError
from eve_build.serve import create_app
from eve_build.session.states import StoreStates
from eve_build.session.stores import open_session_store
from tests.session.postgres_server import PostgresServer
from tests.session.turns import make_turn


def test_turns_are_committed_and_read_back_by_a_new_connection(postgres_url: str,
                                                               tmp_path: Path) -> None:
    store = open_session_store(tmp_path, url=postgres_url)
    row = store.create_session(model="test")
    store.commit_turn(row.id, make_turn(1, approvals=("spin",)))
    store.commit_turn(row.id, make_turn(2))
    store.create_session(session_id="other")
    store.close()

    again = open_session_store(tmp_path, environ={"EVE_SESSION_STORE": postgres_url})
    record = again.read_session(row.id)
    assert record is not None
    assert (record.row.turns, record.row.usage["input_tokens"]) == (2, 20)
    assert [m["parts"][0].get("content") for m in record.messages[::2]] == ["ask 1", "ask 2"]
    assert [c["text"] for c in record.custom] == ["note 1", "note 2"]
    assert record.snapshot["state"] == {"spins": 2}
    assert [r.id for r in again.list_sessions()] == ["other", row.id]
    assert again.delete_session(row.id) and again.read_session(row.id) is None
    with pytest.raises(DiagnosticsError) as caught:
        again.commit_turn(row.id, make_turn(3))
    assert caught.value.diagnostics[0].code == "session/id-unknown"
    again.close()
    assert not (tmp_path / ".eve").exists()  # nothing written on disk


def test_concurrent_state_updates_from_two_connections_lose_nothing(postgres_url: str,
                                                                     tmp_path: Path) -> None:
    stores = [open_session_store(tmp_path, url=postgres_url) for _ in range(2)]
    states = [StoreStates(s.state_scope("serve/agent")) for s in stores]

    def hammer(mapping: StoreStates) -> None:
        for _ in range(40):
            mapping.update_atomically("hits", lambda n: n + 1, lambda: 0)

    threads = [threading.Thread(target=hammer, args=(m,)) for m in states]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert states[1]["hits"] == 80
    for store in stores:
        store.close()


def test_a_newer_schema_and_a_foreign_database_are_refused(postgres_url: str,
                                                          postgres_server: PostgresServer,
                                                          tmp_path: Path) -> None:
    open_session_store(tmp_path, url=postgres_url).close()
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("UPDATE eve_schema SET version = 7")
    with pytest.raises(DiagnosticsError) as caught:
        open_session_store(tmp_path, url=postgres_url)
    found = caught.value.diagnostics[0]
    assert (found.code, found.file) == ("session/store-too-new", postgres_url)
    assert "schema version 7" in found.message

    foreign = postgres_server.create_database("eve_foreign_db")
    try:
        with psycopg.connect(foreign, autocommit=True) as conn:
            conn.execute("CREATE TABLE invoices (id integer)")
        with pytest.raises(DiagnosticsError) as caught:
            open_session_store(tmp_path, url=foreign)
        assert caught.value.diagnostics[0].code == "session/store-foreign"
        with psycopg.connect(foreign, autocommit=True) as conn:
            tables = conn.execute("SELECT table_name FROM information_schema.tables "
                                  "WHERE table_schema = 'public'").fetchall()
        assert tables == [("invoices",)]  # nothing created beside it
    finally:
        postgres_server.drop_database("eve_foreign_db")


def test_an_unreachable_server_is_a_diagnostic_without_the_password(tmp_path: Path) -> None:
    port = closed_port()
    url = f"postgresql://eve:hunter2@127.0.0.1:{port}/nothing"
    with pytest.raises(DiagnosticsError) as caught:
        open_session_store(tmp_path, url=url)
    found = caught.value.diagnostics[0]
    assert found.code == "session/store-unreachable"
    assert found.file == f"postgresql://eve:***@127.0.0.1:{port}/nothing"
    assert "hunter2" not in found.render()
    assert "EVE_SESSION_STORE" in found.hint


def test_without_psycopg_the_error_names_the_extra(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "psycopg", None)  # import psycopg now fails
    with pytest.raises(DiagnosticsError) as caught:
        open_session_store(tmp_path, url="postgresql://eve@127.0.0.1:1/x")
    found = caught.value.diagnostics[0]
    assert found.code == "session/store-extra-missing"
    assert "eve-build[postgres]" in found.hint


def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (bound, then closed)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_a_lost_server_is_a_503_per_request_then_service_resumes(
        counter_root: Path, postgres_server: PostgresServer, tmp_path: Path) -> None:
    url = postgres_server.create_database("eve_lost")
    app = create_app(counter_root, schedules=False, store=open_session_store(tmp_path, url=url))

    def database(allow: bool) -> None:
        """Let the database take connections again, or refuse them and end every one."""
        with psycopg.connect(postgres_server.admin_url, autocommit=True) as admin:
            admin.execute(f"ALTER DATABASE eve_lost ALLOW_CONNECTIONS {str(allow).lower()}")
            if not allow:
                admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                              "WHERE datname = 'eve_lost'")

    async def main() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
            first = await client.post("/count")
            database(allow=False)  # the store's connection is ended, a new one refused
            lost = [await client.post("/count") for _ in range(2)]
            health = await client.get("/.eve/health")
            database(allow=True)  # the database is back
            back = [await client.post("/count"), await client.get("/count")]
            return [first, *lost, health, *back]

    try:
        first, *lost, health, resumed, read = asyncio.run(main())
    finally:
        app.state.host.close()
        app.state.store.close()
        postgres_server.drop_database("eve_lost")
    assert first.json() == {"hits": 1}
    for response in lost:
        assert response.status_code == 503
        error = response.json()["error"]
        assert error["code"] == "session/store-unreachable"
        assert error["message"].startswith("the session store is unavailable: cannot reach "
                                           "the session store: "), error
    # by the second request the store tried a new connection, which the database refused
    assert 'database "eve_lost" is not currently accepting connections' in \
        lost[-1].json()["error"]["message"]
    assert health.status_code == 200  # the server itself keeps serving
    # service resumes: the next update commits on top of the first, nothing was lost
    assert (resumed.status_code, resumed.json()) == (200, {"hits": 2})
    assert read.json() == {"hits": 2}
