"""A watchdog for an event loop that something blocks (sync work inside an `async def`).

A blocked loop cannot time anything out, answer a health check or a ping: `eve
call` ends its process past the call's bound (cli/runtime.py), and a server, which
must go on, watches its loop instead:

    watch = LoopWatch(asyncio.get_running_loop())
    watch.start()            # a heartbeat on the loop, a thread that checks it
    ...
    watch.status()           # {"blocked": False, "blocks": 1, "lastBlock": {...}}
    watch.stop()

The loop beats every INTERVAL seconds. When the thread sees no beat for THRESHOLD
seconds, it logs (WARNING, `eve_build.runtime.loop`) what holds the loop: the label
of the running task (`channel `slow``, `tool `x``, set with `label_task`; a task a
labelled one started inherits it) and the innermost line of code it is at, read
from the loop thread's frames; again every REPEAT seconds while it lasts; and once
the loop runs again, how long it was held. Nothing here can interrupt the blocker.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from eve_build.runtime.redaction import redact_known

logger = logging.getLogger("eve_build.runtime.loop")
T = TypeVar("T")

THRESHOLD = 1.0
"""Seconds without a heartbeat after which the loop counts as blocked."""
INTERVAL = 0.1
"""Seconds between two heartbeats (and two checks of the watching thread)."""
REPEAT = 5.0
"""Seconds between two log lines about one block that lasts."""

LABELS: dict[asyncio.Task[Any], str] = {}
"""What each running task is doing, for the log line (written on the loop only)."""


class label_task:  # lower case: used as a function, `with label_task("tool `x`"):`
    """While inside, the current task is `label` to the watchdog (a class, not a
    generator context manager: a tool call enters it, ~0.5 µs instead of ~2.5)."""

    __slots__ = ("_label", "_previous", "_task")

    def __init__(self, label: str) -> None:
        self._label = label
        self._task: asyncio.Task[Any] | None = None
        self._previous: str | None = None

    def __enter__(self) -> None:
        self._task = task = asyncio.current_task()
        if task is not None:
            self._previous = LABELS.get(task)
            LABELS[task] = self._label

    def __exit__(self, *_exc: object) -> None:
        task = self._task
        if task is not None:
            if self._previous is None:
                LABELS.pop(task, None)
            else:
                LABELS[task] = self._previous


def inherit_label(child: asyncio.Task[Any]) -> None:
    """Give `child` the label of the current task (until it is done)."""
    parent = asyncio.current_task()
    label = LABELS.get(parent) if parent is not None else None
    if label is not None:
        LABELS[child] = label
        child.add_done_callback(lambda done: LABELS.pop(done, None))


@dataclass
class Block:
    handler: str
    where: str
    started: float  # time.monotonic()
    ended: float | None = None
    ended_at: str | None = None

    def to_json(self) -> dict[str, Any]:
        seconds = (self.ended or time.monotonic()) - self.started
        return {"handler": self.handler, "where": self.where, "seconds": round(seconds, 3),
                "endedAt": self.ended_at}


class LoopWatch:
    """The heartbeat of one loop and the thread that watches it."""

    def __init__(self, loop: asyncio.AbstractEventLoop, *, threshold: float = THRESHOLD,
                 report: Callable[[str], None] | None = None) -> None:
        self.loop = loop
        self.threshold = threshold
        self.report = report or (lambda text: logger.warning("%s", redact_known(text)))
        self.blocks = 0
        self.current: Block | None = None
        self.last: Block | None = None
        self._beat = time.monotonic()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._loop_thread = threading.get_ident()
        self._handle: asyncio.TimerHandle | None = None

    def start(self) -> None:
        """Call on the loop's thread."""
        self._loop_thread = threading.get_ident()
        self._tick()
        threading.Thread(target=self._watch, name="eve-loop-watch", daemon=True).start()

    def stop(self) -> None:
        """Call on the loop's thread: a block still open has ended (the loop runs)."""
        self._stop.set()
        if self._handle is not None:
            self._handle.cancel()
        self._finish(time.monotonic())

    def held_for(self) -> float:
        """Seconds since the loop last beat (about INTERVAL at most while it runs)."""
        return time.monotonic() - self._beat

    def status(self) -> dict[str, Any]:
        """`blocked` (always False when the loop itself answers), the count of blocks
        seen, and the last one (handler, where, seconds, when it ended)."""
        last = self.current or self.last
        return {"blocked": self.current is not None, "blocks": self.blocks,
                "lastBlock": None if last is None else last.to_json()}

    def _tick(self) -> None:
        self._beat = time.monotonic()
        if not self._stop.is_set():
            self._handle = self.loop.call_later(INTERVAL, self._tick)

    def _watch(self) -> None:
        next_report = 0.0
        while not self._stop.wait(INTERVAL):
            now = time.monotonic()
            held = now - self._beat
            current = self.current
            if held < self.threshold:
                if current is not None:
                    self._finish(self._beat)
                continue
            if current is None:
                handler, where = self._find_blocker()
                self.current = Block(handler, where, self._beat)
                self.blocks += 1
                self.report(f"the event loop is blocked: {handler} has held it for "
                            f"{held:.1f} s{where}; every request waits (sync code in an "
                            "`async def`? use `await asyncio.sleep` or a sync function)")
                next_report = now + REPEAT
            elif now >= next_report:
                self.report(f"the event loop is still blocked by {current.handler} "
                            f"({held:.0f} s){current.where}")
                next_report = now + REPEAT

    def _finish(self, ended: float) -> None:
        """Close the current block (once, from the thread or from `stop`) and say so."""
        with self._lock:
            current, self.current = self.current, None
        if current is None:
            return
        current.ended, current.ended_at = ended, _utc_now()
        self.last = current
        self.report(f"the event loop runs again: {current.handler} held it for "
                    f"{ended - current.started:.1f} s{current.where}")

    def _find_blocker(self) -> tuple[str, str]:
        """The running task's label (or name) and ` (at file:line in function)`."""
        task = asyncio.current_task(self.loop)
        handler = (LABELS.get(task) or f"the task `{task.get_name()}`") if task is not None \
            else "a callback of the loop"
        import sysconfig  # here: `eve call` imports this module and never blocks

        stdlib = sysconfig.get_paths()["stdlib"]
        frame = sys._current_frames().get(self._loop_thread)
        while frame is not None and frame.f_code.co_filename.startswith(stdlib) and \
                "-packages" not in frame.f_code.co_filename:
            frame = frame.f_back  # the user's line, not time.sleep's or the selector's
        where = "" if frame is None else (
            f" (at {frame.f_code.co_filename}:{frame.f_lineno} in {frame.f_code.co_name})")
        return handler, where


async def run_watched(main: Callable[[], Awaitable[T]]) -> T:
    """`await main()` with a LoopWatch on the running loop (`eve mcp`'s server)."""
    watch = LoopWatch(asyncio.get_running_loop())
    watch.start()
    try:
        return await main()
    finally:
        watch.stop()


def _utc_now() -> str:
    from datetime import UTC, datetime

    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
