"""Listing and running the schedules of a built agent: `eve schedules`, `eve schedule run`."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from eve_build.cli import app as cli
from eve_build.errors import DiagnosticsError
from eve_build.runtime.loader import read_compiled_agent
from eve_build.serve.schedules import list_schedules, run_schedule_now
from tests.json_schemas import validate
from tests.serve.apps import ENVIRON

NOW = datetime(2026, 12, 1, 10, 7, tzinfo=UTC)  # a Tuesday


def invoke(*args: str) -> Result:
    return CliRunner(env=ENVIRON).invoke(cli, list(args))


def test_each_schedule_is_listed_with_its_next_runs(served_root: Path) -> None:
    listed = {i.name: i for i in list_schedules(read_compiled_agent(served_root), NOW, 2)}
    assert sorted(listed) == ["company__reports/weekly", "company__sync", "crm__reports/weekly",
                              "crm__sync", "digest", "flaky", "tick"]
    assert listed["crm__sync"].next_runs == (datetime(2026, 12, 1, 10, 15, tzinfo=UTC),
                                             datetime(2026, 12, 1, 10, 30, tzinfo=UTC))
    assert listed["tick"].cron == "@hourly"
    assert listed["tick"].next_runs[0] == datetime(2026, 12, 1, 11, 0, tzinfo=UTC)
    assert (listed["digest"].mode, listed["digest"].next_runs[0]) == (
        "markdown", datetime(2026, 12, 2, 9, 0, tzinfo=UTC))


def test_schedules_json_lists_names_crons_and_next_runs(served_root: Path) -> None:
    result = invoke("schedules", "--path", str(served_root), "--json", "--count", "2")
    assert result.exit_code == 0, result.output
    validate("schedules.json", json.loads(result.stdout))
    rows = {row["name"]: row for row in json.loads(result.stdout)["schedules"]}
    assert rows["crm__sync"]["cron"] == "*/15 * * * *"
    first, second = (datetime.fromisoformat(t) for t in rows["crm__sync"]["nextRuns"])
    assert first < second and first.minute % 15 == 0 and (second - first).seconds == 900


def test_running_a_schedule_binds_it_to_its_mount(served_root: Path) -> None:
    done = run_schedule_now(served_root, "company__sync", environ=ENVIRON)
    assert (done.status, done.value) == ("ok", {
        "synced": "https://us.crm.example.com/api/contacts/sync", "requests": 1})


def test_schedule_run_prints_the_value(served_root: Path) -> None:
    result = invoke("schedule", "run", "tick", "--path", str(served_root))
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {"ticked": "tick"}


def test_a_markdown_schedule_prints_the_turn_it_would_start(served_root: Path) -> None:
    result = invoke("schedule", "run", "digest", "--path", str(served_root))
    assert (result.exit_code, result.stdout) == (0, "Summarise yesterday's tickets.\n")


def test_a_raising_schedule_fails_with_its_name_and_reason(served_root: Path) -> None:
    result = invoke("schedule", "run", "flaky", "--path", str(served_root))
    assert result.exit_code == 1
    as_json = invoke("schedule", "run", "flaky", "--path", str(served_root), "--json")
    validate("schedule-run.json", json.loads(as_json.stdout))
    assert json.loads(as_json.stdout)["error"]["message"].startswith("RuntimeError: the mail")
    assert result.stderr.startswith("error: schedule `flaky` failed: RuntimeError: the mail "
                                    "server is down (at ")
    assert "Traceback" not in result.output


def test_an_unknown_schedule_suggests_close_names(served_root: Path) -> None:
    result = invoke("schedule", "run", "crm_sync", "--path", str(served_root))
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        "error serve/schedule-unknown: the agent has no schedule `crm_sync`",
        "  hint: did you mean `crm__sync`, `company__sync`?",
        "error: cannot run the schedule: 1 error",
    ]


def test_schedule_runs_are_told_to_observers(served_root: Path) -> None:
    import asyncio

    from eve_build.runtime.loader import load_agent
    from eve_build.serve.contributions import find_bound
    from eve_build.serve.schedules import find_schedule, run_schedule

    with load_agent(served_root, environ=ENVIRON) as agent:
        import eve_agent.hooks.watch as watch

        watch.SEEN.clear()
        flaky = find_schedule(find_bound(agent, "schedules"), "flaky")
        done = asyncio.run(run_schedule(agent, flaky))
        seen = list(watch.SEEN)
    assert done.status == "failed"
    assert [(name, data["schedule"], data["phase"]) for name, data in seen] == [
        ("schedule.run", "flaky", "start"), ("schedule.run", "flaky", "end")]
    assert seen[1][1]["status"] == "failed"
    assert seen[1][1]["error"].startswith("RuntimeError: the mail server is down")


def test_an_unknown_schedule_without_a_close_name_lists_them(served_root: Path) -> None:
    with pytest.raises(DiagnosticsError) as caught:
        run_schedule_now(served_root, "zzz", environ=ENVIRON)
    assert caught.value.diagnostics[0].hint.startswith("its schedules: `company__reports/weekly`")


def test_an_invalid_cron_in_an_older_compiled_agent_is_listed_with_its_problem(
    served_root: Path,
) -> None:
    compiled = read_compiled_agent(served_root)
    tick = next(s for s in compiled.root.schedules if s.name == "tick")
    broken = tick.model_copy(update={"details": {**tick.details, "cron": "0 0 31 2 *"}})
    root = compiled.root.model_copy(update={"schedules": [broken]})
    [info] = list_schedules(compiled.model_copy(update={"root": root}), NOW)
    assert (info.next_runs, info.problem) == (
        (), "day-of-month `31` is not valid, or never happens in month `2`")


@pytest.mark.parametrize("kind", ["async", "sync"])
def test_a_run_past_its_timeout_fails_and_frees_the_scheduler(served_root: Path,
                                                              kind: str) -> None:
    import dataclasses
    import threading

    from eve_build.runtime.loader import load_agent
    from eve_build.serve.contributions import find_bound
    from eve_build.serve.schedules import find_schedule, run_schedule

    release = threading.Event()

    async def hang_async(ctx: object) -> None:
        await asyncio.sleep(60)

    def hang_sync(ctx: object) -> None:
        release.wait(60)

    with load_agent(served_root, environ=ENVIRON) as agent:
        tick = find_schedule(find_bound(agent, "schedules"), "tick")
        hung = dataclasses.replace(tick, definition=dataclasses.replace(
            tick.definition, run=hang_async if kind == "async" else hang_sync))
        done = asyncio.run(run_schedule(agent, hung, timeout=0.2))
        release.set()
        again = asyncio.run(run_schedule(agent, tick, timeout=5))
    assert (done.status, done.error) == ("failed", "the run did not finish within 0.2 s")
    assert (again.status, again.value) == ("ok", {"ticked": "tick"})
