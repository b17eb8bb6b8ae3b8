"""Run one user callable under its mount's binding, with a budget the host enforces.

Sync callables run on a worker thread of their own and async ones as tasks on the
user loop, an event loop on a thread of its own (runtime/userloop.py), so user code
that blocks its loop never blocks the host's; the host awaits a future that either
the result or a timer on its own loop settles, so the budget is measured from
dispatch, and it stops waiting when the budget runs out (or when the host's own task
is cancelled: a turn's deadline, a client that hung up), asking the user task to
stop. Nothing is joined or awaited after that: a handler that never returns, blocks
its loop or swallows its cancellation cannot hold the call, and later calls get fresh
threads. Exceptions are caught and returned, never raised into the host.

A coroutine function the host made itself (a proxy to a node or an MCP connection,
marked with `host_side`) runs on the host's loop as a task, as it always did.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import inspect
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from eve_build.runtime.loopwatch import LABELS, inherit_label
from eve_build.runtime.userloop import start_on_user_loop
from eve_build.runtime.workers import WorkerPool
from eve_build.sdk.binding import HOST_SIDE, Binding, bind

Outcome = tuple[bool, Any]  # (returned normally, value or exception)


@dataclass(frozen=True)
class HandlerRun:
    """How one call ended: it returned `value`, raised `error`, or ran out of time."""

    ending: Literal["returned", "raised", "timeout"]
    seconds: float
    value: Any = None
    error: BaseException | None = None


async def run_bound(
    function: Callable[..., Any], args: tuple[Any, ...], *, binding: Binding,
    pool: WorkerPool, budget: float | None = None,
) -> HandlerRun:
    """Call `function(*args)` bound to `binding`; None as budget waits as long as it takes."""
    started = time.perf_counter()
    outcome = await _wait(*_dispatch(function, args, binding, pool), budget)
    if outcome is not None and outcome[0] and inspect.isawaitable(outcome[1]):
        # a sync function that returned an awaitable: run it within what is left
        left = None if budget is None else max(budget - (time.perf_counter() - started), 0.0)
        outcome = await _wait(*_start_user_task(outcome[1], binding), left)
    seconds = time.perf_counter() - started
    if outcome is None:
        return HandlerRun("timeout", seconds)
    returned, value = outcome
    if returned:
        return HandlerRun("returned", seconds, value=value)
    return HandlerRun("raised", seconds, error=value)


Started = tuple["asyncio.Future[Outcome | None]", "Callable[[], object] | None"]
"""The future the host awaits, and how to ask the call to stop (None: it cannot be)."""


def _dispatch(
    function: Callable[..., Any], args: tuple[Any, ...], binding: Binding, pool: WorkerPool
) -> Started:
    loop = asyncio.get_running_loop()
    if inspect.iscoroutinefunction(function):
        try:
            coroutine = function(*args)
        except Exception as exc:  # e.g. a handler that takes other arguments
            failed: asyncio.Future[Outcome | None] = loop.create_future()
            failed.set_result((False, exc))
            return failed, None
        if getattr(function, HOST_SIDE, False):
            return _start_task(coroutine, binding)
        return _start_user_task(coroutine, binding)
    future: asyncio.Future[Outcome | None] = loop.create_future()
    context = contextvars.copy_context()

    def job() -> None:
        outcome = context.run(_call_bound, function, args, binding)
        # a closed loop raises RuntimeError: nobody waits for this result any more
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(_settle, future, outcome)

    pool.submit(job)
    return future, None


def _start_task(awaitable: Any, binding: Binding) -> Started:
    future: asyncio.Future[Outcome | None] = asyncio.get_running_loop().create_future()
    task = asyncio.ensure_future(_await_bound(awaitable, binding))
    inherit_label(task)  # the loop watchdog names what a blocking task runs for
    task.add_done_callback(lambda done: _settle(future, _task_outcome(done)))
    return future, task.cancel


def _start_user_task(awaitable: Any, binding: Binding) -> Started:
    """`awaitable` on the user loop; its outcome settles a future of this loop."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Outcome | None] = loop.create_future()
    current = asyncio.current_task()

    def settle(outcome: Outcome) -> None:  # on the user loop's thread
        # a closed loop raises RuntimeError: nobody waits for this result any more
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(_settle, future, outcome)

    started = start_on_user_loop(awaitable, binding, settle,
                                 LABELS.get(current) if current is not None else None)
    return future, started.cancel


async def _wait(future: asyncio.Future[Outcome | None], cancel: Callable[[], object] | None,
                budget: float | None) -> Outcome | None:
    """The outcome, or None when the budget ran out first (the task is asked to stop;
    so it is when the waiting task itself is cancelled)."""
    timer = None if budget is None else asyncio.get_running_loop().call_later(
        budget, _settle, future, None)
    try:
        outcome = await future
    except asyncio.CancelledError:
        if cancel is not None:
            cancel()
        raise
    finally:
        if timer is not None:
            timer.cancel()
    if outcome is None and cancel is not None:
        cancel()  # a thread cannot be stopped: its late result is dropped
    return outcome


def _call_bound(function: Callable[..., Any], args: tuple[Any, ...], binding: Binding) -> Outcome:
    try:
        with bind(binding):
            return True, function(*args)
    except BaseException as exc:  # on a worker thread even SystemExit fails the call
        return False, exc


async def _await_bound(awaitable: Any, binding: Binding) -> Outcome:
    try:
        with bind(binding):
            return True, await awaitable
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # user code may raise anything, CancelledError included
        return False, exc


def _task_outcome(done: asyncio.Task[Outcome]) -> Outcome:
    """A task's outcome; a task cancelled before it ran (or by us) counts as raised."""
    if done.cancelled():
        return False, asyncio.CancelledError("the call was cancelled")
    return done.result()


def _settle(future: asyncio.Future[Outcome | None], outcome: Outcome | None) -> None:
    if not future.done():
        future.set_result(outcome)
