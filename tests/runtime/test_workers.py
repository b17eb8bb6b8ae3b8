"""The worker pool: a job never waits behind a hung one; idle threads are reused, then exit."""

from __future__ import annotations

import threading
import time

from eve_build.runtime.workers import WorkerPool


def test_a_hung_job_does_not_hold_the_next_one() -> None:
    pool = WorkerPool(name="test-hung")
    release, second_ran = threading.Event(), threading.Event()
    pool.submit(lambda: release.wait(10) and None)
    pool.submit(second_ran.set)
    try:
        assert second_ran.wait(5)
        assert pool.threads_started == 2
    finally:
        release.set()


def test_idle_threads_are_reused() -> None:
    pool = WorkerPool(name="test-reuse")
    for _ in range(5):
        done = threading.Event()
        pool.submit(done.set)
        assert done.wait(5)
        time.sleep(0.02)  # let the thread report itself idle again
    assert pool.threads_started == 1


def test_idle_threads_exit_after_a_while() -> None:
    pool = WorkerPool(name="test-exit", idle_seconds=0.05)
    done = threading.Event()
    pool.submit(done.set)
    assert done.wait(5)
    deadline = time.monotonic() + 5
    while any(t.name.startswith("test-exit") for t in threading.enumerate()):
        assert time.monotonic() < deadline
        time.sleep(0.02)
    again = threading.Event()
    pool.submit(again.set)  # a new thread starts for the next job
    assert again.wait(5)
    assert pool.threads_started == 2
