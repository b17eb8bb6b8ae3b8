"""The open MCP clients of one loaded agent, on a thread of their own.

The SDK's clients hold anyio task groups: each must be entered and left by one task
of one event loop, while the agent is called from many loops (a loop per thread for
`call_tool`, the server's loop under `eve serve`). So the hub runs its own loop on a
daemon thread; each connection is a task there that enters its client, lists the
tools, and holds the client open until `close()`. Callers hand coroutines over with
`submit` and await (or wait for) the concurrent future; cancelling that future
cancels the work on the hub's loop, and the SDK tells the server.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import threading
from collections.abc import Coroutine
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from eve_build.connections.client import enter_client

if TYPE_CHECKING:
    from mcp import Client, types

T = TypeVar("T")
CLOSE_TIMEOUT = 5.0
"""Seconds `close()` waits for the clients to say goodbye to their servers."""
PAGE_LIMIT = 100
"""Pages of `tools/list` read at most (a server whose cursor never ends cannot hang us)."""


@dataclass
class HeldClient:
    """One connection, once `open` returned: its client and the tools it listed."""

    url: str
    headers: dict[str, str] = field(repr=False)
    client: Client | None = None
    transport: str | None = None
    tools: list[types.Tool] = field(default_factory=list)
    statuses: list[int] = field(default_factory=list)
    closed: str | None = None  # why the client ended, once it has
    reopening: asyncio.Lock = field(default_factory=asyncio.Lock)
    _stop: asyncio.Event | None = None
    _task: asyncio.Task[None] | None = None

    async def open(self, timeout: float) -> None:
        """Connect and list the tools; raises what connecting raised (TimeoutError too)."""
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._stop = asyncio.Event()
        self._task = asyncio.create_task(self._hold(ready, timeout))
        try:
            async with asyncio.timeout(timeout):
                await asyncio.shield(ready)
        except (TimeoutError, asyncio.CancelledError):
            # nobody waits for `ready` now: cancelled, it cannot be left holding the
            # task's CancelledError, which asyncio would print as a traceback at exit
            ready.cancel()
            self._task.cancel()
            raise

    async def _hold(self, ready: asyncio.Future[None], timeout: float) -> None:
        try:
            async with AsyncExitStack() as stack:
                self.client, self.transport = await enter_client(
                    stack, self.url, self.headers, timeout=timeout, statuses=self.statuses,
                    read_timeout=None)
                self.tools = await list_all_tools(self.client, timeout)
                self.closed = None
                ready.set_result(None)
                assert self._stop is not None
                await self._stop.wait()
        except BaseException as exc:  # the SDK and the network raise many kinds
            if not ready.done():
                ready.set_exception(exc)
            self.closed = self.closed or f"closed ({type(exc).__name__})"
            if not isinstance(exc, Exception):
                raise
        finally:
            self.client = None
            self.closed = self.closed or "closed"

    async def stop(self, why: str = "closed by the agent") -> None:
        """Leave the client (its task does, bounded); `open` may start it again."""
        self.closed = why
        if self._stop is not None:
            self._stop.set()
        if self._task is not None:
            await asyncio.wait([self._task], timeout=CLOSE_TIMEOUT)
        self.client = None


async def list_all_tools(client: Client, timeout: float) -> list[types.Tool]:
    tools: list[types.Tool] = []
    cursor: str | None = None
    for _ in range(PAGE_LIMIT):
        async with asyncio.timeout(timeout):
            page = await client.list_tools(cursor=cursor)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if not cursor:
            break
    return tools


class ConnectionHub:
    """A daemon thread running one event loop, started on first use."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self.held: list[HeldClient] = []

    def submit(self, coroutine: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        return asyncio.run_coroutine_threadsafe(coroutine, self._start())

    def _start(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                self._thread = threading.Thread(target=loop.run_forever, daemon=True,
                                                name="eve-mcp-connections")
                self._thread.start()
                self._loop = loop
            return self._loop

    def close(self) -> None:
        """Stop every held client, then the loop and its thread (bounded waits)."""
        with self._lock:
            loop, thread, self._loop, self._thread = self._loop, self._thread, None, None
        if loop is None or thread is None:
            return

        async def stop_all() -> None:
            await asyncio.gather(*(held.stop() for held in self.held), return_exceptions=True)

        # a server that never says goodbye cannot hold the agent's close
        with contextlib.suppress(concurrent.futures.TimeoutError, RuntimeError):
            asyncio.run_coroutine_threadsafe(stop_all(), loop).result(CLOSE_TIMEOUT * 2)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(CLOSE_TIMEOUT)
        if not thread.is_alive():
            loop.close()
