"""Schedules that fire once per due time across every process on one store.

Before a scheduler starts a run it claims the due time in the store
(eve_build.session.runs): the one process whose claim wins runs it, and records the
outcome; the others skip it. A claim that cannot be made (the store is down) skips
the run and logs why: a missed run is safer than one run twice. `eve schedules
--json` shows each schedule's last run, who ran it (`host:pid`) and its status.
"""

from __future__ import annotations

import logging
import os
import socket
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from eve_build.errors import EveBuildError
from eve_build.serve.contributions import BoundContribution
from eve_build.session.runs import SqlScheduleRuns

if TYPE_CHECKING:
    from eve_build.serve.schedules import ScheduleRun

logger = logging.getLogger("eve_build.serve")


def derive_runner() -> str:
    """Who runs a schedule here: `host:pid`."""
    return f"{socket.gethostname()}:{os.getpid()}"


def derive_run_name(name: str, subagent: str | None) -> str:
    """The schedule's name in the store: `name`, or `subagent:name` for a subagent's."""
    return f"{subagent}:{name}" if subagent else name


def derive_due(due: datetime) -> str:
    """A due time as every replica writes it: UTC, to the second."""
    return due.astimezone(UTC).isoformat(timespec="seconds")


class ScheduleClaims:
    """The scheduler's side of the claims: claim a due time, then record how it ended."""

    def __init__(self, runs: SqlScheduleRuns, runner: str | None = None) -> None:
        self.runs = runs
        self.runner = runner or derive_runner()

    def claim(self, schedule: BoundContribution, due: datetime) -> bool:
        name = derive_run_name(schedule.name, schedule.tree or None)
        try:
            won = self.runs.claim(name, derive_due(due), self.runner)
        except EveBuildError as exc:
            logger.error("schedule `%s`: the run due at %s was skipped: cannot claim it in "
                         "the session store: %s", schedule.name, due.isoformat(), exc.message)
            return False
        if not won:
            logger.info("schedule `%s`: the run due at %s is another process's",
                        schedule.name, due.isoformat())
        return won

    def finish(self, schedule: BoundContribution, due: datetime, done: ScheduleRun) -> None:
        name = derive_run_name(schedule.name, schedule.tree or None)
        try:
            self.runs.finish(name, derive_due(due), self.runner, done.status, done.error)
        except EveBuildError as exc:
            logger.error("schedule `%s`: cannot record how the run due at %s ended: %s",
                         schedule.name, due.isoformat(), exc.message)
