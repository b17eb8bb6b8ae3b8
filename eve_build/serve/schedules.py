"""Schedules: list their next runs, and run one now.

Listing reads only the compiled agent (no user code is imported). Running binds
the schedule to its mount: `run(ctx)` is called (a sync one on a worker thread),
a `markdown` schedule yields the text of the turn it would start (this host has
no model to start it with). Every run is told to `schedule.run` observers, at its
start and end. A run that raises, or runs past SCHEDULE_TIMEOUT (EVE_SCHEDULE_TIMEOUT),
is a `failed` ScheduleRun, never an exception: the scheduler then goes on. An async
run past its time is cancelled; a sync one keeps its worker thread, but nothing
waits for it any more.
"""

from __future__ import annotations

import asyncio
import difflib
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from eve_build.cron import derive_next_runs
from eve_build.errors import describe_error
from eve_build.formats.compiled import CompiledAgent, walk_trees
from eve_build.host import load_agent
from eve_build.runtime.agent import Agent
from eve_build.runtime.handlers import run_bound
from eve_build.runtime.loopwatch import label_task
from eve_build.runtime.workers import shared_pool
from eve_build.sdk.binding import ToolContext
from eve_build.serve.contributions import BoundContribution, find_bound
from eve_build.serve.errors import serve_error
from eve_build.settings import read_setting


@dataclass(frozen=True)
class ScheduleInfo:
    """One schedule as `eve schedules` lists it."""

    name: str
    subagent: str | None
    cron: str
    mode: str  # "run" | "markdown"
    next_runs: tuple[datetime, ...]
    problem: str | None = None  # an invalid cron (from an older build): it never fires
    last_run: dict[str, Any] | None = None  # from the session store (eve_build.serve.claims)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "subagent": self.subagent, "cron": self.cron,
                "mode": self.mode, "nextRuns": [t.isoformat() for t in self.next_runs],
                "problem": self.problem, "lastRun": self.last_run}


@dataclass(frozen=True)
class ScheduleRun:
    """How one run ended. `turn` is the text a markdown schedule would start a turn with."""

    name: str
    mode: str
    status: Literal["ok", "failed"]
    seconds: float
    value: Any = None
    turn: str | None = None
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "mode": self.mode, "status": self.status,
                "seconds": round(self.seconds, 6), "value": self.value, "turn": self.turn,
                "error": self.error}


def list_schedules(compiled: CompiledAgent, now: datetime, count: int = 3) -> list[ScheduleInfo]:
    """Every schedule of every agent tree with its next `count` run times after `now`."""
    listed: list[ScheduleInfo] = []
    for tree in walk_trees(compiled.root):
        subagent = tree.path if tree is not compiled.root else None
        for item in tree.schedules:
            cron = str(item.details.get("cron", ""))
            mode = str(item.details.get("mode", "run"))
            try:
                runs = tuple(derive_next_runs(cron, now, count))
            except ValueError as exc:
                listed.append(ScheduleInfo(item.name, subagent, cron, mode, (), str(exc)))
                continue
            listed.append(ScheduleInfo(item.name, subagent, cron, mode, runs))
    return listed


def find_schedule(schedules: Sequence[BoundContribution], name: str,
                  subagent: str | None = None) -> BoundContribution:
    """The schedule called `name` (in that subagent); UsageError with close names if none."""
    tree = subagent or ""
    for schedule in schedules:
        if schedule.name == name and schedule.tree == tree:
            return schedule
    names = sorted({s.name for s in schedules if s.tree == tree})
    close = difflib.get_close_matches(name, names, n=3)
    where = f"the subagent `{subagent}`" if subagent else "the agent"
    hint = (f"did you mean {', '.join(f'`{n}`' for n in close)}?" if close else
            f"its schedules: {', '.join(f'`{n}`' for n in names)}" if names else
            f"{where} has no schedules")
    raise serve_error("serve/schedule-unknown", f"{where} has no schedule `{name}`", hint,
                      title="cannot run the schedule")


SCHEDULE_TIMEOUT = 3600.0
"""Seconds a scheduled `run(ctx)` may take (a hung run must not stop its later runs)."""
SCHEDULE_TIMEOUT_VARIABLE = "EVE_SCHEDULE_TIMEOUT"


async def run_schedule(agent: Agent, schedule: BoundContribution, *,
                       timeout: float | None = None) -> ScheduleRun:
    """Run one schedule now, bound to its mount, telling `schedule.run` observers.

    `timeout` defaults to EVE_SCHEDULE_TIMEOUT, else SCHEDULE_TIMEOUT seconds."""
    if timeout is None:
        timeout = read_setting(SCHEDULE_TIMEOUT_VARIABLE, os.environ, SCHEDULE_TIMEOUT)
    definition = schedule.definition
    mode = "markdown" if definition.markdown is not None else "run"
    await _observe(agent, schedule, "start", mode=mode)
    started = time.perf_counter()
    if schedule.binding.unavailable:  # its mount did not open (an unset env variable)
        done = ScheduleRun(schedule.name, mode, "failed", 0.0,
                           error=f"`{schedule.name}` cannot run: {schedule.binding.unavailable}")
    elif mode == "markdown":
        done = ScheduleRun(schedule.name, mode, "ok", 0.0, turn=str(definition.markdown))
    else:
        context = ToolContext(name=schedule.name, namespace=schedule.item.mount)
        with label_task(f"schedule `{schedule.name}`"):
            ran = await run_bound(definition.run, (context,), binding=schedule.binding,
                                  pool=shared_pool(), budget=timeout)
        seconds = time.perf_counter() - started
        if ran.ending == "returned":
            done = ScheduleRun(schedule.name, mode, "ok", seconds, value=ran.value)
        elif ran.ending == "timeout":
            done = ScheduleRun(schedule.name, mode, "failed", seconds,
                               error=f"the run did not finish within {timeout:g} s")
        else:
            error = ran.error or RuntimeError()
            done = ScheduleRun(schedule.name, mode, "failed", seconds,
                               error=agent.redactor.redact(describe_error(error)))
    await _observe(agent, schedule, "end", mode=mode, status=done.status, error=done.error,
                   seconds=round(done.seconds, 6))
    return done


def run_schedule_now(root: Path, name: str, *, subagent: str | None = None,
                     environ: Mapping[str, str] | None = None) -> ScheduleRun:
    """`eve schedule run NAME`: load the agent on the session store's state (the one
    `eve serve` uses), run one schedule, record the run there, close the agent."""
    from eve_build.serve.claims import ScheduleClaims
    from eve_build.serve.durable import open_served_store, served_states
    from eve_build.serve.scope import served_scope

    store = open_served_store(root, environ)
    try:
        scope = served_scope(store, root, environ)
        with load_agent(root, environ=environ,
                        **served_states(store, root, environ)) as agent:
            schedule = find_schedule(find_bound(agent, "schedules"), name, subagent)
            claims = ScheduleClaims(store.schedule_runs(scope))
            started = datetime.now().astimezone()
            claims.claim(schedule, started)
            done = asyncio.run(run_schedule(agent, schedule))
            claims.finish(schedule, started, done)
            return done
    finally:
        store.close()


async def _observe(agent: Agent, schedule: BoundContribution, phase: str, **data: Any) -> None:
    await agent.afire("schedule.run", subagent=schedule.tree or None,
                      data={"schedule": schedule.name, "phase": phase, **data})

