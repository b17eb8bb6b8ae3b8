"""Run user-code jobs in worker processes under a time budget.

    outcomes = run_jobs(import_batch, [batch_1, batch_2], budget=30.0)

Each payload runs as `target(payload)` in a process of its own (forked where the
platform allows, so a worker starts with eve-build already imported). The target
returns a JSON-able value; the parent never imports user code. A worker that sends no
progress (see `progress.begin`) for `budget` seconds is killed; results a worker
delivered one by one (`progress.deliver`) before it failed are kept; one that dies (a
crash, `os._exit`) is noticed at once. Either becomes a diagnostic naming the module
in progress, and the other workers carry on. In a worker, stdout is redirected to
stderr (user code that prints cannot corrupt machine-readable output) and Ctrl-C is
left to the parent, so a KeyboardInterrupt there was raised by user code. Workers die
with their parent, whatever signal ends it (eve_build.engine.lifeline). Given a
`zygote` (eve_build.engine.zygote), the workers are forked from it instead: already
warm, and `target` must then be a module-level function (it is named, not pickled).
"""

from __future__ import annotations

import importlib
import json
import multiprocessing
import os
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Any

from eve_build.diagnostics import Diagnostic, error
from eve_build.engine import lifeline
from eve_build.engine.job import Target, _worker_main
from eve_build.engine.zygote import WarmWorker, Zygote

START_SECONDS = 60.0
"""A warm worker's first deadline: the zygote may still be importing (a loaded machine)."""


@dataclass
class Outcome:
    """What one worker gave back: its result, or the failure that stopped it."""

    result: Any = None
    failure: Diagnostic | None = None
    partial: dict[str, Any] = field(default_factory=dict)  # `progress.deliver`ed results
    found: list[Diagnostic] = field(default_factory=list)  # stray threads and the like


@dataclass
class _Running:
    process: BaseProcess | WarmWorker
    channel: Connection
    deadline: float
    current: str | None = None
    outcome: Outcome | None = None
    partial: dict[str, Any] = field(default_factory=dict)


def _context() -> Any:
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


def run_jobs(target: Target | str, payloads: list[Any], *, budget: float,
             zygote: Zygote | None = None,
             meanwhile: Callable[[], object] | None = None) -> list[Outcome]:
    """Run `target(payload)` for each payload, each in its own worker, all at once;
    `meanwhile` runs in this process once they are started (imports for later).
    `target` may be named ("module:function"): it is imported here only when needed."""
    context = _context()
    named = target if isinstance(target, str) else f"{target.__module__}:{target.__qualname__}"
    sys.stdout.flush()
    sys.stderr.flush()
    lifeline.prepare()
    running: list[_Running] = []
    with lifeline.dying_together():
        try:
            for payload in payloads:
                lifeline.check_stopping()
                if zygote is not None:  # started once it says its pid (`_receive`)
                    try:
                        warm = zygote.spawn(named, payload)
                    except OSError:  # the zygote is gone (killed?): fork from here instead
                        zygote = None
                    else:
                        running.append(_Running(warm, warm.channel,
                                                time.monotonic() + max(budget, START_SECONDS)))
                        continue
                if isinstance(target, str):
                    module, _, name = target.partition(":")
                    target = getattr(importlib.import_module(module), name)
                receive, send = context.Pipe(duplex=False)
                process = context.Process(target=_worker_main,
                                          args=(send, target, payload, os.getpid()),
                                          daemon=True)
                process.start()
                send.close()
                running.append(_Running(process, receive, time.monotonic() + budget))
                lifeline.track(process.pid or 0)
            if meanwhile is not None:
                meanwhile()
            _watch(running, budget)
        finally:
            for worker in running:
                if worker.process.is_alive():
                    worker.process.kill()
                worker.process.join(timeout=5)
                worker.channel.close()
                lifeline.untrack(worker.process.pid or 0)
    outcomes = [worker.outcome or Outcome() for worker in running]
    for worker, outcome in zip(running, outcomes, strict=True):
        outcome.partial = worker.partial
    return outcomes


def _watch(running: list[_Running], budget: float) -> None:
    while True:
        pending = [w for w in running if w.outcome is None]
        if not pending:
            return
        now = time.monotonic()
        for worker in [w for w in pending if w.deadline <= now]:
            worker.process.kill()
            worker.outcome = Outcome(failure=_timed_out(worker.current, budget))
        pending = [w for w in pending if w.outcome is None]
        if not pending:
            return
        wait_for = max(0.0, min(w.deadline for w in pending) - now)
        ready = wait([w.channel for w in pending], timeout=wait_for)
        for worker in pending:
            if worker.channel in ready:
                _receive(worker, budget)


def _receive(worker: _Running, budget: float) -> None:
    try:
        message = json.loads(worker.channel.recv_bytes())
    except (EOFError, OSError):
        worker.process.join(timeout=5)
        worker.outcome = Outcome(failure=_crashed(worker.current, worker.process.exitcode))
        return
    if "pid" in message and isinstance(worker.process, WarmWorker):  # a warm worker's first
        worker.process.pid = message["pid"]
        lifeline.track(message["pid"])
        worker.deadline = time.monotonic() + budget
    elif "begin" in message:
        worker.current = message["begin"]
        worker.deadline = time.monotonic() + budget
    elif "partial" in message:
        worker.partial.update(message["partial"])
    elif "error" in message:
        worker.outcome = Outcome(failure=error(
            "engine/worker-crashed", worker.current or "",
            f"the build worker failed inside eve-build: {message['error'].strip()}",
            "this is a bug in eve-build: please report it with this message",
        ))
    else:
        worker.outcome = Outcome(result=message["result"],
                                 found=[Diagnostic.from_json(d) for d in message["found"]])


def _timed_out(current: str | None, budget: float) -> Diagnostic:
    what = f"importing `{current}`" if current else "the build worker"
    return error(
        "engine/import-timeout", current or "",
        f"{what} did not finish within {budget:g} s and was stopped (a loop, a sleep or a "
        "blocking call at import?)",
        "move slow or blocking work out of module level, into the tool or handler; or "
        "raise `tool.eve.extension.import-timeout` / EVE_IMPORT_TIMEOUT",
    )


def _crashed(current: str | None, exitcode: int | None) -> Diagnostic:
    if exitcode is not None and exitcode < 0:
        try:
            how = f"was killed by {signal.Signals(-exitcode).name}"
        except ValueError:
            how = f"was killed by signal {-exitcode}"
    else:
        how = f"ended with exit code {exitcode} (os._exit?)"
    what = f"importing `{current}`" if current else "starting the build worker"
    return error(
        "engine/worker-crashed", current or "",
        f"the build worker {how} while {what}",
        "a module must not end the process when imported: remove the os._exit / sys.exit "
        "call or the crashing extension call from module level",
    )
