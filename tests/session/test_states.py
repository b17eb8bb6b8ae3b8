"""Served state in the store: kept across restarts, and no update lost between writers."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import httpx

from eve_build.serve import create_app
from eve_build.session.states import StoreStates, derive_scope
from eve_build.session.stores import open_session_store


def _requests(root: Path, store_root: Path, calls: list[tuple[str, str]]) -> list[Any]:
    """Serve `root` on the store of `store_root` (in process) and make `calls` in order."""
    app = create_app(root, schedules=False, store=open_session_store(store_root))

    async def main() -> list[Any]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://eve") as client:
            return [(await client.request(method, path)).json() for method, path in calls]

    try:
        return asyncio.run(main())
    finally:
        app.state.host.close()
        app.state.store.close()


def test_served_state_survives_a_restart(counter_root: Path, tmp_path: Path) -> None:
    first = _requests(counter_root, tmp_path, [("POST", "/count")] * 3)
    assert [r["hits"] for r in first] == [1, 2, 3]
    again = _requests(counter_root, tmp_path, [("GET", "/count"), ("POST", "/count")])
    assert [r["hits"] for r in again] == [3, 4]

    store = open_session_store(tmp_path)
    assert store.state_scope("serve/agent").read_all() == {"hits": 4}
    assert store.list_sessions() == []  # a scope of its own, not a session
    store.close()


def test_without_a_store_state_is_in_memory_as_before(counter_root: Path,
                                                      tmp_path: Path) -> None:
    app = create_app(counter_root, schedules=False)

    async def main() -> Any:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://eve") as client:
            return (await client.post("/count")).json()

    assert asyncio.run(main()) == {"hits": 1}
    app.state.host.close()
    assert not (counter_root / ".eve" / "sessions.sqlite3").exists()


def test_concurrent_updates_through_two_connections_lose_nothing(tmp_path: Path) -> None:
    stores = [open_session_store(tmp_path) for _ in range(2)]
    states = [StoreStates(s.state_scope("serve/agent")) for s in stores]

    def slow_add(n: int) -> int:
        threading.Event().wait(0.001)  # widen the window between read and write
        return n + 1

    def hammer(mapping: StoreStates) -> None:
        for _ in range(40):
            mapping.update_atomically("hits", slow_add, lambda: 0)

    threads = [threading.Thread(target=hammer, args=(m,)) for m in states for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert states[0]["hits"] == 160
    assert states[1].setdefault("hits", 0) == 160  # setdefault keeps what is there
    for store in stores:
        store.close()


def test_the_mapping_behaves_like_a_dict(tmp_path: Path) -> None:
    store = open_session_store(tmp_path)
    states = StoreStates(store.state_scope("one"))
    other = StoreStates(store.state_scope("two"))
    states["a"] = {"x": [1, 2]}
    states["b"] = "text"
    assert (dict(states), len(states), "a" in states, "c" in states) == (
        {"a": {"x": [1, 2]}, "b": "text"}, 2, True, False)
    assert dict(other) == {}  # scopes do not see each other
    del states["a"]
    assert list(states) == ["b"]
    states.clear()
    assert dict(states) == {}
    store.close()


def test_the_scope_is_the_agent_folder_unless_named() -> None:
    assert derive_scope("agent", {}) == "serve/agent"
    assert derive_scope("agents/support/agent", {}) == "serve/agents/support/agent"
    assert derive_scope("agent", {"EVE_STATE_SCOPE": "billing"}) == "billing"


def test_local_entries_and_state_of_a_served_agent_come_back(counter_root: Path,
                                                             tmp_path: Path) -> None:
    from eve_build.runtime.loader import load_agent
    from eve_build.serve.durable import served_states
    from tests.conftest import FIXTURES

    notes = [FIXTURES / "local" / "notes.py"]
    for text in ("one", "two"):
        store = open_session_store(tmp_path)
        with load_agent(counter_root, extensions=notes,
                        **served_states(store, counter_root)) as agent:
            assert agent.call_tool("note", {"text": text}).value["noted"] == text
        store.close()

    store = open_session_store(tmp_path)
    with load_agent(counter_root, extensions=notes, **served_states(store, counter_root)) as agent:
        assert agent.snapshot()["local"] == {"notes": {"entries": [{"text": "one"},
                                                                   {"text": "two"}]}}
        assert agent.state("local/notes:count") == 2
    assert store.state_scope("serve/agent#local").read_all() == {
        "notes": [{"text": "one"}, {"text": "two"}]}
    store.close()
