"""Warm build workers: a zygote forked early imports the workers' code, then forks one
worker per job, so a worker costs a fork (milliseconds), not an import of pydantic.

    with Zygote.start(["eve_build.engine.batch"]) as zygote:   # in the build process
        worker = zygote.spawn("eve_build.engine.batch:check_batch", job)
        worker.channel ... worker.pid, worker.kill(), worker.join(), worker.exitcode

The build process forks the zygote before it imports pydantic itself, so the zygote's
imports run on the other core while the parent discovers, hashes and reads the cache.
Each job goes to the zygote as JSON over a Unix socket with the write end of a pipe the
parent created; the zygote forks twice and the middle process exits at once, so the
worker is re-parented to the build process, which is a child subreaper
(`PR_SET_CHILD_SUBREAPER`): the build is the worker's real parent, reaps it, reads its
exit status, and the lifeline (pdeath signal, parent watch, signal handlers) holds as
for a worker it forked itself. The worker's first message is its pid, sent once it has
its new parent. The zygote itself dies with the build (the lifeline) or when the build
closes its socket. Linux only (`is_supported`); elsewhere workers fork from the build.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import signal
import socket
import sys
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from eve_build.engine import lifeline

if TYPE_CHECKING:  # imported where used: the zygote is forked before any of that
    from multiprocessing.connection import Connection

BUILD_WORKER_CODE = ["eve_build.engine.batch"]
"""What the zygote of an extension build imports: pydantic, the SDK, the checks."""
PR_SET_CHILD_SUBREAPER = 36
REPARENT_SECONDS = 10.0
"""How long a new worker waits to be handed to the build before it gives up."""


def is_supported() -> bool:
    return sys.platform.startswith("linux") and hasattr(socket, "send_fds") \
        and _become_subreaper()


def _become_subreaper() -> bool:
    lifeline.prepare()
    prctl = lifeline._State.prctl
    return bool(prctl) and prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0


class WarmWorker:
    """A worker forked by the zygote and re-parented to this process: `pid` is known
    once its first message (`{"pid": n}`) has been read."""

    def __init__(self, channel: Connection) -> None:
        self.channel = channel
        self.pid: int | None = None
        self.exitcode: int | None = None

    def is_alive(self) -> bool:
        return self.pid is not None and self.exitcode is None and not self._reap(0)

    def kill(self) -> None:
        if self.pid is not None and self.exitcode is None:
            lifeline._kill(self.pid)

    def join(self, timeout: float | None = None) -> None:
        deadline = time.monotonic() + (timeout if timeout is not None else 1e9)
        while self.pid is not None and self.exitcode is None and not self._reap(0):
            if time.monotonic() >= deadline:
                return
            time.sleep(0.005)

    def _reap(self, flags: int = 0) -> bool:
        assert self.pid is not None
        try:
            pid, status = os.waitpid(self.pid, flags | os.WNOHANG)
        except ChildProcessError:  # reaped elsewhere, or not (yet) our child
            return False
        if pid == 0:
            return False
        self.exitcode = -os.WTERMSIG(status) if os.WIFSIGNALED(status) \
            else os.WEXITSTATUS(status)
        return True


class Zygote:
    """The pre-imported process that forks warm workers for this build."""

    def __init__(self, pid: int, control: socket.socket) -> None:
        self.pid = pid
        self.control = control

    @classmethod
    def start(cls, preload: list[str]) -> Zygote:
        parent = os.getpid()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the zygote
            code = 0
            try:
                ours.close()
                _serve(theirs, parent, preload)
            except BaseException:  # a zygote never returns into the build
                code = 1
            finally:
                os._exit(code)
        theirs.close()
        lifeline.track(pid)
        return cls(pid, ours)

    def spawn(self, target: str, payload: Any) -> WarmWorker:
        """Ask for a worker running `target` ("module:function") on `payload`."""
        from multiprocessing.connection import Connection

        receive, send = os.pipe()
        request = json.dumps({"target": target, "payload": payload}).encode()
        try:
            socket.send_fds(self.control, [len(request).to_bytes(8, "big") + request],
                            [send])
        finally:
            os.close(send)
        return WarmWorker(Connection(receive, writable=False))

    def __enter__(self) -> Zygote:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        """End the zygote now (it may still be importing); its workers are not its own
        children any more, so they are not affected. Closing twice does nothing."""
        if self.control.fileno() == -1:
            return
        self.control.close()
        lifeline._kill(self.pid)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(self.pid, 0)
        lifeline.untrack(self.pid)


@contextlib.contextmanager
def warm_workers(preload: list[str] | None = None) -> Iterator[Zygote | None]:
    """A zygote importing `preload` (default: what an extension build's workers run; a
    module's `warm_up()`, if it has one, is called there too)
    for the duration; None where it is not supported or `EVE_WARM_WORKERS=0`."""
    if os.environ.get("EVE_WARM_WORKERS", "1") == "0" or not is_supported():
        yield None
        return
    zygote = Zygote.start(preload if preload is not None else BUILD_WORKER_CODE)
    try:
        yield zygote
    finally:
        zygote.close()
        lifeline._State.prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)  # as before the build


def _serve(control: socket.socket, parent: int, preload: list[str]) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for number in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, signal.SIG_DFL)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the middle processes reap themselves
    lifeline.bind_to_parent(parent)
    for name in preload:
        try:
            warm_up = getattr(importlib.import_module(name), "warm_up", None)
            if callable(warm_up):
                warm_up()
        except Exception:  # the worker reports it, as a bug of eve-build
            continue
    while True:
        head, fds, _flags, _address = socket.recv_fds(control, 8, 1)
        if not head:
            return  # the build closed the socket: done
        size = int.from_bytes(head, "big")
        data = b""
        while len(data) < size:
            chunk = control.recv(size - len(data))
            if not chunk:
                return
            data += chunk
        if os.fork() == 0:  # the middle process: fork the worker and leave it to the build
            control.close()
            if os.fork() == 0:
                _run_worker(parent, fds[0], json.loads(data))
            os._exit(0)
        os.close(fds[0])


def _run_worker(parent: int, channel: int, request: dict[str, Any]) -> None:
    """In the worker: wait to be the build's child, say so, then run the job."""
    from multiprocessing.connection import Connection

    from eve_build.engine.job import _worker_main

    deadline = time.monotonic() + REPARENT_SECONDS
    while os.getppid() != parent:
        if time.monotonic() > deadline:
            os._exit(lifeline.ORPHANED_EXIT)
        time.sleep(0.0005)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    connection = Connection(channel, readable=False)
    connection.send_bytes(json.dumps({"pid": os.getpid()}).encode())
    module, _, name = request["target"].partition(":")
    target = getattr(importlib.import_module(module), name)
    _worker_main(connection, target, request["payload"], parent)
