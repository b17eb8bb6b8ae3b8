"""The scheduler's policy with a frozen clock: when runs start, overlap, failures, missed runs."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from eve_build.formats.compiled import CompiledContribution
from eve_build.sdk.binding import Binding
from eve_build.sdk.definitions import Schedule
from eve_build.serve.contributions import BoundContribution
from eve_build.serve.scheduler import Scheduler
from eve_build.serve.schedules import ScheduleRun

START = datetime(2026, 12, 1, 10, 7, tzinfo=UTC)


def at(hour: int, minute: int) -> datetime:
    return datetime(2026, 12, 1, hour, minute, tzinfo=UTC)


def schedule(name: str, cron: str) -> BoundContribution:
    item = CompiledContribution(kind="schedule", name=name, localName=name, mount=None,
                                source="agent", module=None, attribute=None, file=f"{name}.py",
                                identity="", details={"cron": cron, "mode": "run"})
    return BoundContribution(item, Schedule(cron=cron), Binding(None, None, ""), "")


class Runs:
    """A runner that records each run; `hold` makes runs wait until `release()`."""

    def __init__(self, status: str = "ok") -> None:
        self.started: list[str] = []
        self.status = status
        self.gate: asyncio.Event | None = None

    def hold(self) -> None:
        self.gate = asyncio.Event()

    def release(self) -> None:
        assert self.gate is not None
        self.gate.set()

    async def __call__(self, item: BoundContribution) -> ScheduleRun:
        self.started.append(item.name)
        if self.gate is not None:
            await self.gate.wait()
        if self.status == "failed":
            return ScheduleRun(item.name, "run", "failed", 0.0, error="RuntimeError: down")
        return ScheduleRun(item.name, "run", "ok", 0.0, value=True)


def drive(scenario: Callable[[], Awaitable[Any]]) -> Any:
    return asyncio.run(scenario())  # type: ignore[arg-type]  # an Awaitable, not a Coroutine


def test_a_schedule_runs_when_its_time_comes_not_before() -> None:
    runs = Runs()
    scheduler = Scheduler(lambda: [schedule("sync", "*/15 * * * *")], runs, lambda: START)

    async def scenario() -> list[list[str]]:
        fired = [scheduler.fire_due(START), scheduler.fire_due(at(10, 14)),
                 scheduler.fire_due(at(10, 15)), scheduler.fire_due(at(10, 16))]
        await scheduler.wait_idle()
        return fired

    assert drive(scenario) == [[], [], ["sync"], []]
    assert runs.started == ["sync"]
    assert scheduler.next_runs() == {"sync": at(10, 30)}


def test_a_run_still_going_makes_the_next_one_skip_and_say_so(
    caplog: pytest.LogCaptureFixture,
) -> None:
    runs = Runs()
    scheduler = Scheduler(lambda: [schedule("sync", "*/15 * * * *")], runs)

    async def scenario() -> list[list[str]]:
        runs.hold()
        scheduler.fire_due(START)
        fired = [scheduler.fire_due(at(10, 15))]
        await asyncio.sleep(0)  # let the run start (no time passes)
        fired.append(scheduler.fire_due(at(10, 30)))  # the 10:15 run is still going
        runs.release()
        await scheduler.wait_idle()
        fired.append(scheduler.fire_due(at(10, 45)))
        await scheduler.wait_idle()
        return fired

    with caplog.at_level(logging.WARNING, logger="eve_build.serve"):
        assert drive(scenario) == [["sync"], [], ["sync"]]
    assert runs.started == ["sync", "sync"]
    assert scheduler.skipped == [("sync", at(10, 30))]
    assert [r.getMessage() for r in caplog.records] == [
        "schedule `sync`: the run due at 2026-12-01T10:30:00+00:00 was skipped: the previous "
        "run is still going"]


def test_a_failed_run_is_logged_and_the_next_run_still_happens(
    caplog: pytest.LogCaptureFixture,
) -> None:
    runs = Runs(status="failed")
    scheduler = Scheduler(lambda: [schedule("flaky", "*/5 * * * *")], runs)

    async def scenario() -> None:
        scheduler.fire_due(START)
        for minute in (10, 15):
            scheduler.fire_due(at(10, minute))
            await scheduler.wait_idle()

    with caplog.at_level(logging.ERROR, logger="eve_build.serve"):
        drive(scenario)
    assert runs.started == ["flaky", "flaky"]
    assert [r.getMessage() for r in caplog.records] == [
        "schedule `flaky` failed: RuntimeError: down"] * 2


def test_runs_missed_while_asleep_are_not_replayed() -> None:
    runs = Runs()
    scheduler = Scheduler(lambda: [schedule("sync", "*/15 * * * *")], runs)

    async def scenario() -> None:
        scheduler.fire_due(START)
        scheduler.fire_due(at(12, 1))  # 10:15 ... 12:00 were all due: one run, not eight
        await scheduler.wait_idle()

    drive(scenario)
    assert runs.started == ["sync"]
    assert scheduler.next_runs() == {"sync": at(12, 15)}


def test_schedules_dropped_by_a_new_generation_are_forgotten() -> None:
    listed = [schedule("sync", "*/15 * * * *"), schedule("daily", "@daily")]
    scheduler = Scheduler(lambda: listed, Runs())

    async def scenario() -> None:
        scheduler.fire_due(START)
        listed.pop()
        scheduler.fire_due(at(10, 8))

    drive(scenario)
    assert scheduler.next_runs() == {"sync": at(10, 15)}


def test_the_loop_sleeps_until_the_next_run_on_its_clock() -> None:
    now = [datetime(2026, 12, 1, 10, 14, 30, tzinfo=UTC)]
    slept: list[float] = []
    runs = Runs()
    scheduler = Scheduler(lambda: [schedule("sync", "*/15 * * * *")], runs, lambda: now[0])

    async def fake_sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += timedelta(seconds=seconds)
        if len(slept) == 3:
            raise asyncio.CancelledError

    async def scenario() -> None:
        with pytest.raises(asyncio.CancelledError):
            await scheduler.run(sleep=fake_sleep)
        await scheduler.wait_idle()

    drive(scenario)
    assert slept == [30.0, 60.0, 60.0]  # up to 10:15, then a minute at most
    assert now[0] == at(10, 17)
    assert runs.started == ["sync"]


def test_an_invalid_cron_from_an_older_build_is_logged_once_and_never_fires(
    caplog: pytest.LogCaptureFixture,
) -> None:
    runs = Runs()
    scheduler = Scheduler(lambda: [schedule("feb31", "0 0 31 2 *"),
                                   schedule("sync", "*/15 * * * *")], runs)

    async def scenario() -> list[list[str]]:
        fired = [scheduler.fire_due(START), scheduler.fire_due(at(10, 15))]
        await scheduler.wait_idle()
        return fired

    with caplog.at_level(logging.ERROR, logger="eve_build.serve"):
        assert drive(scenario) == [[], ["sync"]]
    assert [r.getMessage() for r in caplog.records] == [
        "schedule `feb31` never fires: day-of-month `31` is not valid, or never happens in "
        "month `2`; run `eve build` again"]
