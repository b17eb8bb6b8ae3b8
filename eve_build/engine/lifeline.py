"""Build workers die with the process that started them, whatever ends it.

    with dying_together():          # the parent, around the jobs (main thread only)
        pid = start_worker(); track(pid) ... untrack(pid)
    bind_to_parent(parent_pid)      # first thing in the worker (or a member build process)

A worker busy in user code (a module looping at import) would otherwise outlive a
SIGTERM, SIGHUP or Ctrl-C of `eve extension build` / `eve build`, orphaned to init at
100% CPU. Three layers, each enough on its own where it applies:

- on Linux the worker asks the kernel for SIGKILL when its parent dies
  (`prctl(PR_SET_PDEATHSIG)`), which holds even for a parent killed with SIGKILL;
- in every worker a daemon thread checks the parent pid twice a second and ends the
  worker once it has changed (it was reparented: the parent is gone);
- while jobs run, the parent's SIGTERM, SIGHUP and SIGINT handlers kill every tracked
  worker first, then do what the previous handler would have done (the default:
  die by the same signal; SIGINT: KeyboardInterrupt). An ignored signal (`nohup`)
  stays ignored, and after a signal no new worker is started.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from types import FrameType
from typing import Any, ClassVar

PR_SET_PDEATHSIG = 1
PARENT_POLL_SECONDS = 0.5
ORPHANED_EXIT = 70  # a worker whose parent is gone ends with this code
SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP", "SIGINT")
                if hasattr(signal, name))

Handler = Callable[[int, FrameType | None], Any] | int | None


class WorkersStopped(BaseException):
    """A signal asked this process to stop: no new worker starts."""


class _State:
    live: ClassVar[set[int]] = set()
    previous: ClassVar[dict[int, Handler]] = {}
    depth: ClassVar[int] = 0
    stopping: ClassVar[bool] = False
    prctl: ClassVar[Any] = None  # libc's prctl, looked up in the parent so forks inherit it


def track(pid: int) -> None:
    if _State.stopping:
        _kill(pid)
        raise WorkersStopped
    _State.live.add(pid)


def untrack(pid: int) -> None:
    _State.live.discard(pid)


def check_stopping() -> None:
    """Raise WorkersStopped once a signal asked this process to stop."""
    if _State.stopping:
        raise WorkersStopped


def prepare() -> None:
    """Look up prctl before forking (the workers then need no ctypes import of their own)."""
    if _State.prctl is None and sys.platform.startswith("linux"):
        try:
            import ctypes

            _State.prctl = ctypes.CDLL(None, use_errno=True).prctl
        except (OSError, AttributeError):
            _State.prctl = False


def bind_to_parent(parent: int) -> None:
    """In the child: die when `parent` does (pdeath signal, and a thread that watches)."""
    prepare()
    if _State.prctl:
        _State.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    if os.getppid() != parent:  # the parent died before the kernel could be asked
        os._exit(ORPHANED_EXIT)
    threading.Thread(target=_watch_parent, args=(parent,), name="eve-lifeline",
                     daemon=True).start()


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(PARENT_POLL_SECONDS)
    os._exit(ORPHANED_EXIT)


@contextmanager
def dying_together() -> Iterator[None]:
    """While inside, SIGTERM/SIGHUP/SIGINT kill the tracked workers before anything else.

    Installs the handlers only from the main thread (the only one Python lets); nested
    uses share one installation.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    if _State.depth == 0:
        for number in SIGNALS:
            current = signal.getsignal(number)
            if current is not signal.SIG_IGN:
                _State.previous[number] = current
                signal.signal(number, _on_signal)
    _State.depth += 1
    try:
        yield
    finally:
        _State.depth -= 1
        if _State.depth == 0:
            for number, previous in _State.previous.items():
                signal.signal(number, previous if previous is not None else signal.SIG_DFL)
            _State.previous.clear()
            _State.stopping = False


def _on_signal(number: int, frame: FrameType | None) -> None:
    _State.stopping = True
    for pid in list(_State.live):
        _kill(pid)
    previous = _State.previous.get(number)
    if callable(previous):
        previous(number, frame)  # SIGINT: KeyboardInterrupt, as without us
        return
    signal.signal(number, signal.SIG_DFL)
    os.kill(os.getpid(), number)  # end as the signal would have ended us


def _kill(pid: int) -> None:
    with suppress(OSError):  # already gone
        os.kill(pid, signal.SIGKILL)
