"""Whose state it is: two agent projects on one store (one SQLite file, one real
PostgreSQL) keep separate counters and separate schedule claims, and the legacy
`serve/agent` scope is adopted by the first project that opens the store and refused
for any other, naming both (eve_build.serve.scope)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path

import httpx
import pytest

from eve_build.serve import create_app
from eve_build.session.store import open_session_store
from tests.conftest import REPO
from tests.session.servers import start_cli, stopping

START = datetime(2026, 12, 1, 9, 0, 30).astimezone()
TIMEOUT = 60.0


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "shared.sqlite3")
    return str(request.getfixturevalue("postgres_url"))


def _count(url: str, times: int) -> list[int]:
    with httpx.Client(base_url=url, timeout=TIMEOUT) as client:
        return [client.post("/count").json()["hits"] for _ in range(times)]


def test_two_projects_on_one_store_keep_separate_counters(
        counter_root: Path, other_counter_root: Path, store_url: str) -> None:
    first = start_cli(counter_root, store_url, "--no-schedules")
    second = start_cli(other_counter_root, store_url, "--no-schedules")
    with stopping(first, second):
        assert _count(first.url, 3) == [1, 2, 3]
        assert _count(second.url, 2) == [1, 2]  # its own counter, not the first's 4, 5
        assert _count(first.url, 1) == [4]
        assert first.stop() == 0 and second.stop() == 0

    store = open_session_store(REPO, url=store_url)
    try:
        assert store.state_scope("project/demo-agent").read_all() == {"hits": 4}
        assert store.state_scope("project/other-agent").read_all() == {"hits": 2}
    finally:
        store.close()


def test_two_projects_on_one_store_each_claim_their_own_due_times(
        counter_root: Path, other_counter_root: Path, store_url: str) -> None:
    apps = [create_app(root, store=open_session_store(REPO, url=store_url),
                       clock=lambda: START) for root in (counter_root, other_counter_root)]

    async def main() -> list[list[list[str]]]:
        fired: list[list[list[str]]] = []
        for minute in range(4):  # minute 0 only sets the first due time
            now = START + timedelta(minutes=minute)
            fired.append([app.state.scheduler.fire_due(now) for app in apps])
            for app in apps:
                await app.state.scheduler.wait_idle()
        return fired

    try:
        fired = asyncio.run(main())
    finally:
        for app in reversed(apps):  # last opened, first closed: each gives back `eve_agent`
            app.state.host.close()
            app.state.store.close()
    for round_ in fired[1:]:  # both projects ran `minutely` every minute
        assert round_ == [["minutely"], ["minutely"]], fired
    store = open_session_store(REPO, url=store_url)
    try:
        for scope in ("project/demo-agent", "project/other-agent"):
            assert store.state_scope(scope).read_all() == {"ticks": 3}
            assert len(store.schedule_runs(scope).history("minutely")) == 3
    finally:
        store.close()


def _serve(root: Path, store_url: str, **env: str) -> subprocess.CompletedProcess[str]:
    """`eve serve` that is expected to refuse to start (the timeout guards a hang)."""
    return subprocess.run(
        [sys.executable, "-m", "eve_build", "serve", "--path", str(root), "--port", "0",
         "--json"], capture_output=True, text=True, timeout=TIMEOUT, check=False,
        env={**os.environ, "PYTHONPATH": str(REPO), "EVE_SESSION_STORE": store_url, **env})


def test_the_legacy_scope_is_adopted_by_the_first_project_and_refused_for_another(
        counter_root: Path, other_counter_root: Path, store_url: str) -> None:
    store = open_session_store(REPO, url=store_url)  # what an earlier eve-build left
    store.state_scope("serve/agent").put("hits", 40)
    store.state_scope("serve/agent#local").put("notes", [{"text": "kept"}])
    assert store.schedule_runs("serve/agent").claim("minutely", "2026-12-01T09:00:00Z", "old")
    store.close()

    first = start_cli(counter_root, store_url, "--no-schedules")
    with stopping(first):
        assert _count(first.url, 1) == [41]  # the legacy state, adopted
        assert first.stop() == 0

    refused = _serve(other_counter_root, store_url)
    assert refused.returncode == 1, refused.stdout
    assert "Traceback" not in refused.stderr
    found = json.loads(refused.stdout)["diagnostics"]["items"][0]
    assert found["code"] == "session/scope-adopted"
    assert "`serve/agent`" in found["message"]
    assert "`demo-agent`" in found["message"] and "`other-agent`" in found["message"]
    assert "EVE_STATE_SCOPE=project/other-agent" in found["hint"]

    # told which to use, it starts with a state of its own; the adopter keeps its own
    second = start_cli(other_counter_root, store_url, "--no-schedules",
                       env={"EVE_STATE_SCOPE": "project/other-agent"})
    again = start_cli(counter_root, store_url, "--no-schedules")
    with stopping(second, again):
        assert _count(second.url, 1) == [1]
        assert _count(again.url, 1) == [42]
        assert second.stop() == 0 and again.stop() == 0

    store = open_session_store(REPO, url=store_url)
    try:
        owner = store.state_scope("eve/adopted-scopes").get("serve/agent")[1]
        assert (owner["project"], owner["scope"]) == ("demo-agent", "project/demo-agent")
        assert store.state_scope("serve/agent").read_all() == {}  # moved, not copied
        assert store.state_scope("project/demo-agent#local").read_all() == {
            "notes": [{"text": "kept"}]}
        runs = store.schedule_runs("project/demo-agent").history("minutely")
        assert [r.runner for r in runs] == ["old"]
        assert store.schedule_runs("serve/agent").history("minutely") == []
    finally:
        store.close()
