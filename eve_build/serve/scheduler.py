"""Fire schedules on their cron, in the server's process, one run of a schedule at a time.

`fire_due(now)` is the whole policy, and tests drive it with a frozen clock: each
schedule's next run is computed from when it was first seen; when that time has
come, a run starts unless the previous run of that schedule is still going (then
this one is skipped, and logged); either way the next run is the first cron time
after `now`, so runs missed while the process slept are not replayed. `run()`
loops over it, sleeping until the earliest next run (at most a minute, so a
changed clock is noticed).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from typing import Protocol

from eve_build.cron import derive_next_runs
from eve_build.errors import describe_exception
from eve_build.runtime.redaction import redact_known
from eve_build.serve.contributions import BoundContribution
from eve_build.serve.schedules import ScheduleRun

logger = logging.getLogger("eve_build.serve")

Clock = Callable[[], datetime]
Runner = Callable[[BoundContribution], Awaitable[ScheduleRun]]
Source = Callable[[], Sequence[BoundContribution]]
MAX_SLEEP = 60.0


class Claims(Protocol):
    """Who runs a due time when several processes schedule (eve_build.serve.claims)."""

    def claim(self, schedule: BoundContribution, due: datetime) -> bool: ...
    def finish(self, schedule: BoundContribution, due: datetime, done: ScheduleRun) -> None: ...


def local_now() -> datetime:
    """Now, in the host's local time zone (cron times are local, as with cron itself)."""
    return datetime.now().astimezone()


class Scheduler:
    """Fires the schedules `source()` lists (re-read each tick: `eve dev` swaps them)."""

    def __init__(self, source: Source, runner: Runner, clock: Clock = local_now,
                 claims: Claims | None = None) -> None:
        self._source = source
        self._claims = claims
        self._runner = runner
        self._clock = clock
        self._next: dict[tuple[str, str, str], datetime] = {}
        self._running: dict[tuple[str, str, str], asyncio.Task[None]] = {}
        self.skipped: list[tuple[str, datetime]] = []
        self._invalid: set[tuple[str, str, str]] = set()

    def next_runs(self) -> dict[str, datetime]:
        """The next run of each schedule seen so far, by name."""
        return {key[1]: when for key, when in self._next.items()}

    def fire_due(self, now: datetime) -> list[str]:
        """Start every schedule whose time has come; returns the names started."""
        started: list[str] = []
        current = {self._key(s): s for s in self._source()}
        for key in [k for k in self._next if k not in current]:
            del self._next[key]  # a schedule that a new generation dropped
        for key, schedule in current.items():
            if key in self._invalid or not self._first_seen(key, schedule, now):
                continue
            due = self._next[key]
            if due > now:
                continue
            self._next[key] = derive_next_runs(key[2], now)[0]
            running = self._running.get(key)
            if running is not None and not running.done():
                logger.warning("schedule `%s`: the run due at %s was skipped: the previous "
                               "run is still going", schedule.name, due.isoformat())
                self.skipped.append((schedule.name, due))
                continue
            if self._claims is not None and not self._claims.claim(schedule, due):
                continue  # another process on the store runs this one
            self._running[key] = asyncio.ensure_future(self._run(schedule, due))
            started.append(schedule.name)
        return started

    async def wait_idle(self) -> None:
        """Wait for every run started so far to end."""
        tasks = [t for t in self._running.values() if not t.done()]
        if tasks:
            await asyncio.wait(tasks)

    async def run(self, sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        """Fire schedules until cancelled."""
        while True:
            now = self._clock()
            self.fire_due(now)
            upcoming = min(self._next.values(), default=None)
            seconds = MAX_SLEEP if upcoming is None else (upcoming - now).total_seconds()
            await sleep(min(max(seconds, 0.05), MAX_SLEEP))

    def _first_seen(self, key: tuple[str, str, str], schedule: BoundContribution,
                    now: datetime) -> bool:
        """Set the first run of a schedule not seen before; False when its cron is invalid
        (a compiled agent of an older eve-build may hold one): logged once, never fired."""
        if key in self._next:
            return True
        try:
            self._next[key] = derive_next_runs(key[2], now)[0]
        except ValueError as exc:
            logger.error("schedule `%s` never fires: %s; run `eve build` again", schedule.name,
                         exc)
            self._invalid.add(key)
            return False
        return True

    def cancel(self) -> None:
        for task in self._running.values():
            task.cancel()

    async def _run(self, schedule: BoundContribution, due: datetime) -> None:
        try:
            done = await self._runner(schedule)
        except Exception as exc:  # the runner reports failures; this is a last guard
            described = redact_known(describe_exception(exc))
            logger.error("schedule `%s` failed: %s", schedule.name, described)
            self._finish(schedule, due, ScheduleRun(schedule.name, "run", "failed", 0.0,
                                                    error=described))
            return
        self._finish(schedule, due, done)
        if done.status == "failed":
            logger.error("schedule `%s` failed: %s", schedule.name, done.error)
        elif done.turn is not None:
            logger.info("schedule `%s` would start a turn: %s", schedule.name, done.turn)
        else:
            logger.info("schedule `%s` ran in %.3f s", schedule.name, done.seconds)

    def _finish(self, schedule: BoundContribution, due: datetime, done: ScheduleRun) -> None:
        if self._claims is not None:
            self._claims.finish(schedule, due, done)

    @staticmethod
    def _key(schedule: BoundContribution) -> tuple[str, str, str]:
        return (schedule.tree, schedule.name, str(schedule.item.details.get("cron", "")))
