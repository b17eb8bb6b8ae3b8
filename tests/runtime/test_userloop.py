"""The user loop: user coroutines run off the host's loop, share one loop while it runs,
and a loop held by a blocker is retired so that later calls never wait behind it."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

from eve_build.runtime import userloop
from eve_build.runtime.handlers import run_bound
from eve_build.runtime.workers import WorkerPool
from eve_build.sdk.binding import Binding, current_binding, host_side

BINDING = Binding(None, None, "extensions/x")
DEADLINE = 60.0


async def where(*_args: Any) -> tuple[int, str | None]:
    """The thread this runs on, and the mount bound around it."""
    binding = current_binding()
    return threading.get_ident(), binding.mount_path if binding else None


def _wait_until(condition: Any) -> None:
    deadline = time.monotonic() + DEADLINE
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        time.sleep(0.02)


def test_user_coroutines_run_off_the_host_loop_on_one_shared_loop() -> None:
    async def main() -> list[Any]:
        pool = WorkerPool()
        return [await run_bound(where, (), binding=BINDING, pool=pool, budget=DEADLINE)
                for _ in range(3)]

    runs = asyncio.run(main())
    threads = {run.value[0] for run in runs}
    assert len(threads) == 1 and threading.get_ident() not in threads
    assert {run.value[1] for run in runs} == {"extensions/x"}  # the binding follows


def test_host_side_coroutines_run_on_the_calling_loop() -> None:
    @host_side
    async def proxy() -> tuple[int, str | None]:
        return await where()

    async def main() -> Any:
        return await run_bound(proxy, (), binding=BINDING, pool=WorkerPool())

    assert asyncio.run(main()).value[0] == threading.get_ident()


def test_a_blocker_is_cut_off_and_its_loop_retired_for_the_next_calls() -> None:
    release = threading.Event()

    async def blocker(*_args: Any) -> str:
        release.wait()  # sync wait inside async def: the user loop is held
        return "late"

    async def main() -> tuple[Any, Any, Any]:
        pool = WorkerPool()
        first = await run_bound(where, (), binding=BINDING, pool=pool)
        blocked = await run_bound(blocker, (), binding=BINDING, pool=pool, budget=0.2)
        held = userloop._LOOPS.current
        assert held is not None
        await asyncio.to_thread(_wait_until, lambda: held.is_held() and held.watch.current)
        after = await run_bound(where, (), binding=BINDING, pool=pool, budget=DEADLINE)
        return first, blocked, after

    try:
        first, blocked, after = asyncio.run(main())
        assert blocked.ending == "timeout"
        assert after.ending == "returned" and after.value[0] != first.value[0]
        assert userloop.user_loop_status()["blocked"] is True
    finally:
        release.set()
    retired = [t for t in threading.enumerate() if t.ident == first.value[0]]
    _wait_until(lambda: not any(t.is_alive() for t in retired))  # it ends once let go
    status = userloop.user_loop_status()
    assert status["blocked"] is False and status["blocks"] >= 1
    assert status["lastBlock"]["endedAt"] is not None
