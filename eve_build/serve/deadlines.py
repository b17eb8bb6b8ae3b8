"""Deadlines of channel requests: one ticker per event loop, not a timer per request.

`asyncio.timeout` arms and cancels a timer for every request, about 11 µs each,
a fifth of what the host adds to a trivial channel. Here a request registers its
task and its deadline in a dict (well under a microsecond); one ticker task,
running only while requests are registered, cancels the tasks whose deadline
passed, every RESOLUTION seconds. A deadline therefore fires up to RESOLUTION
late, which a timeout counted in seconds does not notice.

    deadlines = shared_deadlines()
    task = deadlines.start(seconds)
    try:
        value = await handler()
    except asyncio.CancelledError:
        if deadlines.finish(task):   # we cancelled it: the deadline passed
            ...timed out...
        raise
    finally:
        deadlines.finish(task)
"""

from __future__ import annotations

import asyncio
import contextlib

RESOLUTION = 0.05
"""Seconds between two checks of the deadlines (the most a deadline fires late)."""


class Deadlines:
    """The registered tasks of one process and the ticker that cancels the late ones."""

    def __init__(self, resolution: float = RESOLUTION) -> None:
        self._resolution = resolution
        self._due: dict[asyncio.Task[object], float] = {}
        self._expired: set[asyncio.Task[object]] = set()
        self._ticker: asyncio.Task[None] | None = None

    def start(self, seconds: float) -> asyncio.Task[object]:
        """Register the current task to be cancelled `seconds` from now; returns it."""
        task = asyncio.current_task()
        if task is None:  # pragma: no cover - only called from a request's task
            raise RuntimeError("a deadline needs a running task")
        loop = task.get_loop()
        self._due[task] = loop.time() + seconds
        ticker = self._ticker
        if ticker is None or ticker.done() or ticker.get_loop() is not loop:
            self._ticker = loop.create_task(self._tick(loop))
        return task

    def finish(self, task: asyncio.Task[object]) -> bool:
        """Forget `task`'s deadline; True when it had passed and the task was cancelled.

        The cancellation is then taken back (`uncancel`), so the task goes on normally.
        Calling it again returns False.
        """
        self._due.pop(task, None)
        if task in self._expired:
            self._expired.discard(task)
            task.uncancel()
            return True
        return False

    async def _tick(self, loop: asyncio.AbstractEventLoop) -> None:
        """Cancel late tasks until none of this loop's tasks is registered."""
        with contextlib.suppress(asyncio.CancelledError):
            while True:
                await asyncio.sleep(self._resolution)
                now = loop.time()
                mine = [(task, due) for task, due in self._due.items()
                        if task.get_loop() is loop]
                if not mine:
                    return
                for task, due in mine:
                    if due <= now:
                        del self._due[task]
                        self._expired.add(task)
                        task.cancel()


_SHARED = Deadlines()


def shared_deadlines() -> Deadlines:
    """The process-wide deadlines (every channel of every generation uses them)."""
    return _SHARED
