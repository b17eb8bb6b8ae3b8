"""Wait on a condition, never on the clock: the helpers the timing-free tests share
(`wait_until`, and `stop_process` for the servers they start).

A deadline is only a bound on a hang (generous: a loaded machine is slow, not wrong);
the test goes on as soon as the condition holds, and a condition that never holds fails
the test naming what it waited for.
"""

from __future__ import annotations

import signal
import subprocess
import time
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

DEADLINE = 60.0


def wait_until(condition: Callable[[], T], what: str, *, timeout: float = DEADLINE,
               interval: float = 0.02) -> T:
    """The first truthy value of `condition()`, polled every `interval` s; AssertionError
    naming `what` when `timeout` s pass without one."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout:g} s for {what}; it never happened")
        time.sleep(interval)


def stop_process(process: subprocess.Popen[Any], sig: int = signal.SIGTERM, *,
                 timeout: float = DEADLINE) -> tuple[Any, Any]:
    """Send `sig` and wait for the process to end (its remaining output); killed when it
    has not ended within `timeout` s, so a test never leaves a server behind."""
    process.send_signal(sig)
    try:
        return process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        return process.communicate(timeout=timeout)
