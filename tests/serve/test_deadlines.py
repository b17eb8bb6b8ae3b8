"""The shared deadlines of channel requests: late tasks are cancelled, others are not."""

from __future__ import annotations

import asyncio

import pytest

from eve_build.serve.deadlines import Deadlines


async def _guarded(deadlines: Deadlines, seconds: float, work: float) -> str:
    task = deadlines.start(seconds)
    try:
        await asyncio.sleep(work)
    except asyncio.CancelledError:
        if deadlines.finish(task):
            return "timeout"
        raise
    finally:
        deadlines.finish(task)
    return "done"


def test_a_task_past_its_deadline_is_cancelled_and_the_cancellation_taken_back() -> None:
    deadlines = Deadlines(resolution=0.01)

    async def main() -> tuple[str, int]:
        outcome = await asyncio.create_task(_guarded(deadlines, 0.05, 30))
        task = asyncio.current_task()
        assert task is not None
        return outcome, task.cancelling()

    outcome, cancelling = asyncio.run(main())
    assert outcome == "timeout"
    assert cancelling == 0


def test_a_task_within_its_deadline_finishes_and_the_ticker_stops() -> None:
    deadlines = Deadlines(resolution=0.01)

    async def main() -> tuple[list[str], bool]:
        outcomes = await asyncio.gather(*(_guarded(deadlines, 5, 0.02) for _ in range(20)))
        await asyncio.sleep(0.05)  # the ticker leaves once nothing is registered
        ticker = deadlines._ticker
        return outcomes, ticker is not None and ticker.done()

    outcomes, stopped = asyncio.run(main())
    assert outcomes == ["done"] * 20
    assert stopped


def test_a_cancellation_from_elsewhere_is_not_a_timeout() -> None:
    deadlines = Deadlines(resolution=0.01)

    async def main() -> None:
        task = asyncio.create_task(_guarded(deadlines, 5, 30))
        await asyncio.sleep(0.02)
        task.cancel()
        await task

    with pytest.raises(asyncio.CancelledError):
        asyncio.run(main())


def test_only_the_late_task_of_several_is_cancelled() -> None:
    deadlines = Deadlines(resolution=0.01)

    async def main() -> list[str]:
        return await asyncio.gather(_guarded(deadlines, 0.05, 30),
                                    _guarded(deadlines, 5, 0.2))

    assert asyncio.run(main()) == ["timeout", "done"]


def test_each_event_loop_gets_its_own_ticker() -> None:
    deadlines = Deadlines(resolution=0.01)
    for _ in range(2):  # a second asyncio.run must not rely on the first loop's ticker
        assert asyncio.run(_guarded(deadlines, 0.05, 30)) == "timeout"
