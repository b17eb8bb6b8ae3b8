"""User coroutines run on an event loop of their own, never on the host's.

An `async def` tool, hook, channel, schedule or prompt fragment that blocks its loop
with sync code (`time.sleep` inside `async def`) would freeze everything that shares
that loop: the budget's own timer, `/.eve/health`, every other request, an MCP ping,
a SIGTERM. So `run_bound` (runtime/handlers.py) starts each user coroutine on a *user
loop*, an event loop on a daemon thread of its own, and awaits on the host's loop a
future that either the coroutine's outcome or the host's timer settles. The budget
then holds whatever the user code does, the call fails with the reason, and the host
loop (`eve serve`, `eve mcp`, a session of `eve run` or `eve chat`) keeps answering.

    started = start_on_user_loop(coroutine, binding, settle)   # on the host's loop
    started.cancel()                                            # at the budget, from the host

Every user coroutine shares one user loop, as they shared the host's before: a client
object kept in a module (an `httpx.AsyncClient`) made on one call works on the next.
When that loop is held by a task for BLOCKED_AFTER seconds, the next call gets a fresh
loop: the held one is retired (it takes no new work; once it runs again its tasks end,
the timed-out ones cancelled, and then its thread ends), so calls never queue behind a
blocker. Each user loop has a LoopWatch that logs what holds it, and
`user_loop_status()` sums them up for the health route.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import os
import threading
from collections.abc import Callable
from typing import Any

from eve_build.runtime.loopwatch import LABELS, THRESHOLD, Block, LoopWatch
from eve_build.sdk.binding import Binding, bind

Outcome = tuple[bool, Any]  # (returned normally, value or exception)
Settle = Callable[[Outcome], None]

BLOCKED_AFTER = THRESHOLD
"""Seconds a task may hold the user loop before new calls go to a fresh one."""
KEEP_WATCHES = 16
"""Retired loops whose watches health still reads (older ones are summed up)."""


class StartedCall:
    """One user coroutine handed to a user loop; `cancel` may be called from any thread."""

    __slots__ = ("_cancelled", "_loop", "_task")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._task: asyncio.Task[Outcome] | None = None
        self._cancelled = False

    def cancel(self) -> None:
        """Ask the coroutine to stop (it runs on another loop: the request is posted)."""
        self._cancelled = True
        with contextlib.suppress(RuntimeError):  # that loop is closed: nothing runs there
            self._loop.call_soon_threadsafe(self._cancel_here)

    def _cancel_here(self) -> None:
        if self._task is not None:
            self._task.cancel()


class UserLoop:
    """An event loop on a daemon thread of its own, watched by a LoopWatch."""

    def __init__(self, number: int) -> None:
        self.loop = asyncio.new_event_loop()
        self.watch = LoopWatch(self.loop)
        self.retired = False
        self._running = 0  # tasks not done yet (read and written on the loop's thread)
        ready = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(ready,), daemon=True,
                                       name=f"eve-user-loop-{number}")
        self.thread.start()
        ready.wait()

    def _run(self, ready: threading.Event) -> None:
        asyncio.set_event_loop(self.loop)
        self.watch.start()
        ready.set()
        try:
            self.loop.run_forever()
        finally:
            self.watch.stop()
            self.loop.close()

    def is_held(self) -> bool:
        """Whether a task has held this loop (no heartbeat) for BLOCKED_AFTER seconds."""
        return (self.watch.held_for() >= BLOCKED_AFTER
                and asyncio.current_task(self.loop) is not None)

    def start(self, awaitable: Any, binding: Binding, settle: Settle,
              label: str | None) -> StartedCall:
        started = StartedCall(self.loop)
        context = contextvars.copy_context()

        def begin() -> None:
            if started._cancelled:
                _discard(awaitable)
                settle((False, asyncio.CancelledError("the call was cancelled")))
                return
            task = self.loop.create_task(_await_bound(awaitable, binding), context=context)
            started._task = task
            self._running += 1
            if label is not None:
                LABELS[task] = label  # the watchdog names what a blocking task runs for
            task.add_done_callback(lambda done: self._finished(done, settle))

        self.loop.call_soon_threadsafe(begin)
        return started

    def _finished(self, done: asyncio.Task[Outcome], settle: Settle) -> None:
        LABELS.pop(done, None)
        self._running -= 1
        settle((False, asyncio.CancelledError("the call was cancelled"))
               if done.cancelled() else done.result())
        self._stop_if_idle()

    def retire(self) -> None:
        """Take no new work; stop once the tasks running now are done (from any thread)."""
        self.retired = True
        with contextlib.suppress(RuntimeError):
            self.loop.call_soon_threadsafe(self._stop_if_idle)

    def _stop_if_idle(self) -> None:
        if self.retired and self._running == 0:
            self.loop.stop()


async def _await_bound(awaitable: Any, binding: Binding) -> Outcome:
    try:
        with bind(binding):
            return True, await awaitable
    except BaseException as exc:  # user code may raise anything, CancelledError included
        return False, exc


def _discard(awaitable: Any) -> None:
    """Close a coroutine that will never run (no `never awaited` warning)."""
    close = getattr(awaitable, "close", None)
    if callable(close):
        with contextlib.suppress(Exception):
            close()


class _Loops:
    """The current user loop, and the watches of the retired ones."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.current: UserLoop | None = None
        self.count = 0
        self.watches: list[LoopWatch] = []
        self.forgotten_blocks = 0
        self.forgotten_last: Block | None = None

    def pick(self) -> UserLoop:
        with self.lock:
            current = self.current
            if current is not None and current.is_held():
                current.retire()
                current = None
            if current is None:
                self.count += 1
                current = self.current = UserLoop(self.count)
                self.watches.append(current.watch)
                for old in self.watches[:-KEEP_WATCHES]:
                    self.forgotten_blocks += old.blocks
                    self.forgotten_last = old.last or self.forgotten_last
                del self.watches[:-KEEP_WATCHES]
            return current

    def reset(self) -> None:
        """In a forked child: the parent's loop threads do not exist here."""
        self.lock = threading.Lock()
        self.current = None
        self.watches = []


_LOOPS = _Loops()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_LOOPS.reset)


def start_on_user_loop(awaitable: Any, binding: Binding, settle: Settle,
                       label: str | None = None) -> StartedCall:
    """Run `awaitable` bound to `binding` on the user loop; `settle(outcome)` is called
    on that loop's thread when it ends (post to your own loop from there)."""
    return _LOOPS.pick().start(awaitable, binding, settle, label)


def user_loop_status() -> dict[str, Any]:
    """`blocked` (a user loop is held now), `blocks` seen on every user loop, and the
    newest block (handler, where, seconds, when it ended), as LoopWatch.status()."""
    with _LOOPS.lock:
        watches = list(_LOOPS.watches)
        blocks, last = _LOOPS.forgotten_blocks, _LOOPS.forgotten_last
    current: Block | None = None
    for watch in watches:
        blocks += watch.blocks
        if watch.current is not None:
            current = watch.current
        if watch.last is not None and (last is None or watch.last.started > last.started):
            last = watch.last
    shown = current or last
    return {"blocked": current is not None, "blocks": blocks,
            "lastBlock": None if shown is None else shown.to_json()}


def merge_status(*statuses: dict[str, Any]) -> dict[str, Any]:
    """One `loop` answer for health from the host loop's and the user loops' statuses."""
    blocked = any(s["blocked"] for s in statuses)
    shown = [s["lastBlock"] for s in statuses if s["lastBlock"] is not None and (
        s["blocked"] or not blocked)]
    return {"blocked": blocked, "blocks": sum(s["blocks"] for s in statuses),
            "lastBlock": shown[-1] if shown else None}
