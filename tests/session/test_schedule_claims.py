"""A due time is run by one process of those sharing a store, and the run is recorded."""

from __future__ import annotations

import asyncio
import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from eve_build.cli import app as cli
from eve_build.serve import create_app
from eve_build.session.stores import open_session_store
from tests.json_schemas import validate

START = datetime(2026, 12, 1, 9, 0, 30).astimezone()


def test_two_schedulers_on_one_store_fire_each_due_time_once(counter_root: Path,
                                                             tmp_path: Path) -> None:
    apps = [create_app(counter_root, store=open_session_store(tmp_path),
                       clock=lambda: START) for _ in range(2)]
    for index, app in enumerate(apps):
        app.state.claims.runner = f"replica-{index}:{100 + index}"

    async def main() -> list[list[list[str]]]:
        fired: list[list[list[str]]] = []
        for minute in range(4):  # minute 0 only sets the first due time
            now = START + timedelta(minutes=minute)
            round_ = [app.state.scheduler.fire_due(now) for app in apps]
            for app in apps:
                await app.state.scheduler.wait_idle()
            fired.append(round_)
        return fired

    try:
        fired = asyncio.run(main())
    finally:
        for app in reversed(apps):  # last opened, first closed: each gives back `eve_agent`
            app.state.host.close()
            app.state.store.close()
    assert fired[0] == [[], []]
    for round_ in fired[1:]:  # each minute: one of the two ran `minutely`, never both
        assert sorted(name for names in round_ for name in names) == ["minutely"]
    store = open_session_store(tmp_path)
    assert store.state_scope("project/demo-agent").read_all() == {"ticks": 3}
    runs = store.schedule_runs("project/demo-agent").history("minutely")
    store.close()
    assert [r.status for r in runs] == ["ok"] * 3
    assert len({r.due_at for r in runs}) == 3
    assert {r.runner for r in runs} <= {"replica-0:100", "replica-1:101"}


def _schedules_json(root: Path) -> dict[str, Any]:
    result = CliRunner().invoke(cli, ["schedules", "--json", "--path", str(root)])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    validate("schedules.json", payload)
    return {row["name"]: row for row in payload["schedules"]}


def test_schedule_run_uses_the_stores_state_and_eve_schedules_shows_the_last_run(
        counter_root: Path, tmp_path: Path, monkeypatch: Any) -> None:
    store_file = tmp_path / "store.sqlite3"
    monkeypatch.setenv("EVE_SESSION_STORE", str(store_file))
    assert _schedules_json(counter_root)["minutely"]["lastRun"] is None
    for _ in range(2):
        ran = CliRunner().invoke(cli, ["schedule", "run", "minutely", "--json", "--path",
                                       str(counter_root)])
        assert ran.exit_code == 0, ran.output
    assert json.loads(ran.stdout)["value"] == {"ticks": 2}  # state kept between runs
    failed = CliRunner().invoke(cli, ["schedule", "run", "broken", "--path", str(counter_root)])
    assert failed.exit_code == 1

    rows = _schedules_json(counter_root)
    last = rows["minutely"]["lastRun"]
    assert last["status"] == "ok" and last["error"] is None and last["finishedAt"]
    host, pid = last["runner"].rsplit(":", 1)
    assert host and pid.isdigit()
    broken = rows["broken"]["lastRun"]
    assert broken["status"] == "failed" and "the mail server is down" in broken["error"]

    text = CliRunner().invoke(cli, ["schedules", "--path", str(counter_root)]).stdout
    assert f"last run: due {last['dueAt']} by {last['runner']}: ok" in text


def test_listing_schedules_creates_no_store(counter_root: Path, monkeypatch: Any) -> None:
    monkeypatch.delenv("EVE_SESSION_STORE", raising=False)
    store_file = counter_root / ".eve" / "sessions.sqlite3"
    assert not store_file.exists()
    assert [row["lastRun"] for row in _schedules_json(counter_root).values()] == [None, None]
    assert not store_file.exists()
