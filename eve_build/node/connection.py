"""One async connection from a host to a node, with the host's clock on every request.

A reader task settles each pending request from its reply and routes notifications
to the request they name (`params.request`). When the node closes the socket, dies
or sends a line that is not JSON-RPC 2.0, every request in flight fails with a
NodeError naming the node, and the connection is marked broken: later requests fail
at once with the same reason.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import itertools
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

from eve_build.errors import EveBuildError
from eve_build.node import protocol

T = TypeVar("T")
GONE = "closed the connection (did it stop or crash?)"
Notice = Callable[[str, dict[str, Any]], None]
"""Called with (method, params) for each notification about one request."""


class NodeError(EveBuildError):
    """A node failed the host: it is gone, hung, or answered with garbage or an error."""

    def __init__(self, node: str, message: str, hint: str = "") -> None:
        super().__init__(f"node `{node}` {message}", hint)
        self.node = node


class NodeConnection:
    """A socket to one node; requests may run concurrently (ids tell replies apart)."""

    def __init__(self, node: str, reader: asyncio.StreamReader,
                 writer: asyncio.StreamWriter) -> None:
        self.node = node
        self._reader = reader
        self._writer = writer
        self._ids = itertools.count(1)
        self._pending: dict[int, tuple[asyncio.Future[Any], Notice | None]] = {}
        self._abandoned: set[int] = set()  # timed out or cancelled: a late reply is dropped
        self.broken: str | None = None  # why the connection is no longer usable
        self._task = asyncio.ensure_future(self._read())

    @classmethod
    async def open(cls, node: str, socket: Path, *, timeout: float) -> NodeConnection:
        try:
            reader, writer = await asyncio.wait_for(
                asyncio.open_unix_connection(str(socket), limit=protocol.LINE_LIMIT), timeout)
        except (OSError, TimeoutError) as exc:
            raise NodeError(node, f"does not accept connections on `{socket}`: "
                            f"{getattr(exc, 'strerror', None) or type(exc).__name__}",
                            f"start it with `eve node start {node}`") from None
        return cls(node, reader, writer)

    async def request(self, method: str, params: dict[str, Any], *, timeout: float | None,
                      on_notice: Notice | None = None) -> Any:
        """The result of `method`; NodeError when it fails, times out or the node breaks."""
        if self.broken is not None:
            raise NodeError(self.node, self.broken)
        request_id = next(self._ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = (future, on_notice)
        try:
            self._writer.write(protocol.encode_request(request_id, method, params))
            await self._writer.drain()
            return await asyncio.wait_for(future, timeout)
        except TimeoutError:
            raise NodeError(self.node, f"did not answer `{method}` within {timeout:g} s",
                            "the call was abandoned; see the node's log with "
                            "`eve node list` for its path") from None
        except OSError:
            self._break(GONE)
            raise NodeError(self.node, GONE) from None
        finally:
            self._pending.pop(request_id, None)
            if future.cancelled() or not future.done():  # wait_for cancels on a timeout
                self._abandoned.add(request_id)

    def abort(self) -> None:
        """Close at once, from the loop's own thread (no waiting)."""
        self._task.cancel()
        self._writer.close()

    async def close(self) -> None:
        self._task.cancel()
        self._writer.close()
        with contextlib.suppress(Exception):
            await self._writer.wait_closed()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task

    async def _read(self) -> None:
        try:
            while True:
                line = await self._reader.readline()
                if not line:
                    self._break(GONE)
                    return
                message = protocol.decode_message(line)
                self._dispatch(message)
        except protocol.ProtocolError as exc:
            self._break(f"sent a malformed message: {exc}")
        except ConnectionError:  # a reset: the node died with bytes unread
            self._break(GONE)
        except (OSError, ValueError) as exc:  # ValueError: a line over the limit
            self._break(f"broke the connection: {exc}")
        finally:
            self._writer.close()

    def _dispatch(self, message: protocol.Message) -> None:
        if not message.is_reply:
            target = message.params.get("request")
            pending = self._pending.get(target) if isinstance(target, int) else None
            if pending is not None and pending[1] is not None and message.method:
                pending[1](message.method, message.params)
            return
        if message.id in self._abandoned:
            self._abandoned.discard(message.id)
            return
        pending = self._pending.get(message.id) if isinstance(message.id, int) else None
        if pending is None:
            raise protocol.ProtocolError(f"a reply to no request (id {message.id!r})")
        future = pending[0]
        if future.done():
            return
        if message.error is not None:
            future.set_exception(message.error)
        else:
            future.set_result(message.result)

    def _break(self, reason: str) -> None:
        self.broken = reason
        for future, _ in list(self._pending.values()):
            if not future.done():
                future.set_exception(NodeError(self.node, reason))


def run_sync(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run `coroutine` to its end from sync code, even inside a running event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    with concurrent.futures.ThreadPoolExecutor(1) as executor:
        return executor.submit(asyncio.run, coroutine).result()
