"""Observed events (DESIGN section 7): fire-and-report, never changing an outcome.

The host emits `agent.start` when an agent has loaded and `agent.end` when it
closes, `tool.start`, `tool.update` (each progress report) and `tool.end` around a
call, and `extensions.changed` after a reload (`eve message` adds the turn and
message events). Local observers and packaged `define_hook(events=...)` handlers
run through the same pipeline with the hook budget; a failing one is logged with
its owner's name. With no subscriber, emitting costs a scan of the hook list.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from eve_build.runtime.pipeline import HookPipeline
from eve_build.sdk.hooks import Event


def derive_event(name: str, **fields: Any) -> Event:
    return Event(name, tool=fields.pop("tool", None), arguments=fields.pop("arguments", None),
                 result=fields.pop("result", None), text=fields.pop("text", None),
                 data=dict(fields.pop("data", {}), **fields))


def has_subscribers(pipeline: HookPipeline, name: str) -> bool:
    return any(entry.handler(name) is not None for entry in pipeline.hooks)


async def emit(pipeline: HookPipeline, name: str, **fields: Any) -> None:
    """Run the observers of `name`; what they return or raise changes nothing."""
    if has_subscribers(pipeline, name):
        await pipeline.observe(derive_event(name, **fields))


def emit_blocking(pipeline: HookPipeline, name: str, **fields: Any) -> None:
    """`emit` from sync code, inside or outside a running loop (on a thread of its own)."""
    if not has_subscribers(pipeline, name):
        return
    thread = threading.Thread(target=lambda: asyncio.run(emit(pipeline, name, **fields)),
                              name="eve-events", daemon=True)
    thread.start()
    thread.join()
