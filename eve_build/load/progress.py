"""What a worker process tells its parent while it runs user code.

Code that imports user modules calls `begin(shown)` before each one. In the parent
process (no worker installed) that does nothing; in a worker it tells the parent which
module is in progress, so a hang or a crash can name it, and it looks for non-daemon
threads the previous module left running (they would keep a process alive for ever).
"""

from __future__ import annotations

import json
import os
import threading
from typing import TYPE_CHECKING, ClassVar

from eve_build.diagnostics import Diagnostic, error

if TYPE_CHECKING:  # only a worker gets one; the host never imports multiprocessing here
    from multiprocessing.connection import Connection


class _State:
    channel: Connection | None = None
    pid: int = 0  # the worker's; a process user code forked from it never reports
    current: str | None = None
    known_threads: ClassVar[set[int]] = set()
    found: ClassVar[list[Diagnostic]] = []


def install(channel: Connection) -> None:
    """Make this process a worker that reports to `channel`."""
    _State.channel = channel
    _State.pid = os.getpid()
    _State.current = None
    _State.known_threads.clear()
    _State.known_threads.update(t.ident or 0 for t in threading.enumerate())
    _State.found.clear()


def in_worker() -> bool:
    """True inside a worker: a KeyboardInterrupt here was raised by user code."""
    return _State.channel is not None


def send(message: dict[str, object]) -> None:
    if _State.channel is not None:
        if os.getpid() != _State.pid:  # a copy user code forked at import, back in ours:
            os._exit(0)  # it must not speak for the worker (nor build a second time)
        _State.channel.send_bytes(json.dumps(message).encode())


def deliver(key: str, value: object) -> None:
    """Hand one finished result to the parent now (kept even if the worker dies later)."""
    send({"partial": {key: value}})


def deliver_encoded(key: str, text: str) -> None:
    """`deliver` of a value already encoded as JSON `text` (not encoded twice)."""
    if _State.channel is not None:
        if os.getpid() != _State.pid:  # as in `send`
            os._exit(0)
        _State.channel.send_bytes(f'{{"partial": {{{json.dumps(key)}: {text}}}}}'.encode())


def begin(shown: str) -> None:
    """`shown` (a module's file, as diagnostics show it) is about to be imported."""
    if _State.channel is None:
        return
    _check_threads()
    _State.current = shown
    send({"begin": shown})


def finish() -> list[Diagnostic]:
    """The stray-thread diagnostics found in this worker (after its last module)."""
    _check_threads()
    _State.current = None
    return list(_State.found)


def _check_threads() -> None:
    started = [t for t in threading.enumerate()
               if (t.ident or 0) not in _State.known_threads and t.is_alive()]
    _State.known_threads.update(t.ident or 0 for t in started)
    for thread in started:
        if thread.daemon or _State.current is None:
            continue
        _State.found.append(error(
            "engine/stray-thread", _State.current,
            f"importing `{_State.current}` started the thread `{thread.name}`, which is not a "
            "daemon and still runs: it would keep every build and agent process alive",
            "start threads inside a tool or handler, not at import; or pass `daemon=True`",
        ))
