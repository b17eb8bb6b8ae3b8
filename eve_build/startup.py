"""The cyclic garbage collector while a one-shot command starts.

Starting `eve run` makes a few hundred thousand objects (modules, classes, pydantic
schemas, the loaded agent) that live until the process ends. The collector scans them
again and again while they are made, and once more when the interpreter exits: about a
third of a one-message run's CPU (docs/benchmarks.md). So a one-shot command (`eve
run`, `eve call`) holds the collector (`hold_collection`, the CLI's first step) until its
agent is loaded (`release_collection`: where the session opens, where `eve call` has
loaded the agent), and then freezes what was made so far:
the turn itself runs with the collector on, and neither its collections nor the one at
exit scan the startup's objects again.

`release_collection` does nothing unless `hold_collection` ran in this process, so a
long-running process (`eve serve`, `eve chat`, the tests) is never changed: freezing
there would keep each request's garbage forever.
"""

from __future__ import annotations

import gc

_held = False


def hold_collection() -> None:
    """No automatic collection until `release_collection` (the CLI calls this first)."""
    global _held
    if gc.isenabled():
        gc.disable()
        _held = True


def release_collection() -> None:
    """Freeze every object made since the hold and turn the collector back on; a no-op
    when nothing is held (a second call, a process that never held it)."""
    global _held
    if _held:
        _held = False
        gc.freeze()
        gc.enable()


def is_collection_held() -> bool:
    """Whether a hold is in force (for the tests and `eve run -v`)."""
    return _held
