"""Worker threads for sync handlers and tools: one free thread per job, always.

A sync hook handler may never return. The host stops waiting for it when its
budget runs out, but the thread stays busy, so a pool with a fixed size would
fill up with hung handlers and stall every later call. This pool reserves an idle
thread for each job or starts a new one, so a job never queues behind another.
Its lock guards only the idle count and is never held while a job runs, so an
abandoned thread holds no lock. Idle threads exit after IDLE_SECONDS.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable

IDLE_SECONDS = 30.0
logger = logging.getLogger(__name__)

Job = Callable[[], None]


class WorkerPool:
    """Runs each submitted job at once on a thread of its own (daemon threads)."""

    def __init__(self, name: str = "eve-worker", idle_seconds: float = IDLE_SECONDS) -> None:
        self._name = name
        self._idle_seconds = idle_seconds
        self._jobs: queue.SimpleQueue[Job] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._idle = 0  # idle threads minus queued jobs: threads free for a new job
        self._started = 0

    def submit(self, job: Job) -> None:
        """Start `job` now on a free thread. Exceptions must be handled by the job."""
        with self._lock:
            spawn = self._idle == 0
            if spawn:
                self._started += 1
                number = self._started
            else:
                self._idle -= 1
        self._jobs.put(job)
        if spawn:
            thread = threading.Thread(target=self._work, name=f"{self._name}-{number}",
                                      daemon=True)
            thread.start()

    @property
    def threads_started(self) -> int:
        """How many threads this pool has started so far (for tests and benches)."""
        return self._started

    def _work(self) -> None:
        while True:
            try:
                job = self._jobs.get(timeout=self._idle_seconds)
            except queue.Empty:
                with self._lock:
                    if self._idle > 0:  # no job is reserved for this thread: leave
                        self._idle -= 1
                        return
                continue
            try:
                job()
            except BaseException:  # a job reports its own errors; keep the thread
                logger.exception("a job of %s raised", self._name)
            with self._lock:
                self._idle += 1


_SHARED: WorkerPool | None = None
_SHARED_LOCK = threading.Lock()


def shared_pool() -> WorkerPool:
    """The process-wide pool (threads are cheap to keep idle and shared by every host)."""
    global _SHARED
    with _SHARED_LOCK:
        if _SHARED is None:
            _SHARED = WorkerPool()
        return _SHARED
