"""Who is told that a build waits (for another build's lock on the cache), while it waits.

    WAIT_LISTENERS[:] = [print_progress]   # the CLI, before it calls into the core
    tell_waiting("waiting for the build cache ...")

The core never prints: it calls the listeners, and the CLI shows their text on its
progress channel (stderr, hidden by `--quiet`). No listener: nothing is said.
"""

from __future__ import annotations

from collections.abc import Callable

WAIT_LISTENERS: list[Callable[[str], None]] = []


def tell_waiting(text: str) -> None:
    for listener in WAIT_LISTENERS:
        listener(text)
