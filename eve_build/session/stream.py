"""The model's stream as eve events: `message.start`, one `message.update` per chunk,
`message.end` for each text part of the model's answer (`data["role"]` is
`assistant`), and a `token` for the listener (the terminal, an SSE stream).
"""

from __future__ import annotations

from collections.abc import AsyncIterable
from typing import Any

from pydantic_ai import RunContext
from pydantic_ai.messages import (
    AgentStreamEvent,
    PartDeltaEvent,
    PartEndEvent,
    PartStartEvent,
    TextPart,
    TextPartDelta,
)

from eve_build.runtime.events import emit
from eve_build.runtime.pipeline import HookPipeline
from eve_build.session.transcript import Listener, SessionEvent


class StreamRelay:
    """pydantic-ai's `event_stream_handler` for one run of one tree."""

    def __init__(self, pipeline: HookPipeline, listener: Listener,
                 subagent: str | None = None) -> None:
        self.pipeline, self.listener, self.subagent = pipeline, listener, subagent

    async def __call__(self, ctx: RunContext[Any],  # noqa: ARG002 (pydantic-ai's handler API)
                       events: AsyncIterable[AgentStreamEvent]) -> None:
        async for event in events:
            if isinstance(event, PartStartEvent) and isinstance(event.part, TextPart):
                await emit(self.pipeline, "message.start", role="assistant",
                           subagent=self.subagent)
                await self._chunk(event.part.content)
            elif isinstance(event, PartDeltaEvent) and isinstance(event.delta, TextPartDelta):
                await self._chunk(event.delta.content_delta)
            elif isinstance(event, PartEndEvent) and isinstance(event.part, TextPart):
                await emit(self.pipeline, "message.end", text=event.part.content,
                           role="assistant", subagent=self.subagent)

    async def _chunk(self, text: str) -> None:
        if not text:
            return
        if self.subagent is None:  # a subagent's words reach its caller as the tool result
            self.listener(SessionEvent("token", {"text": text}))
        await emit(self.pipeline, "message.update", text=text, role="assistant",
                   subagent=self.subagent)
