"""A session answers its tools: `ctx.sample`, `ctx.run_subagent`, `ctx.model`, `ctx.log`.

`Session.asend` installs these around each message (sdk/interaction.py `interacting`),
so every tool call of its turns reaches them, whatever thread or loop the tool runs on:

- `sample`: one request to the session's model (pydantic-ai's direct `model_request`),
  with the request's `system` prompt and `max_tokens`; the reply's text;
- `subagent`: one of the agent's subagents (named by its path or its last segment) runs
  the text as a session of its own (its prompt, tools and model, no history) and its
  reply comes back, as the delegation tool does;
- `log`: each `ctx.log` goes to the session's listener (a `log` SessionEvent: `-v` on
  the CLI, an SSE `log` event over HTTP) and to the `log` observers (local extensions'
  `events={"log": ...}`), on the session's loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from eve_build.runtime.events import emit
from eve_build.sdk.interaction import InteractionError, LogEntry, SampleRequest
from eve_build.session.transcript import Listener, SessionEvent

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage
    from pydantic_ai.models import Model

    from eve_build.runtime.agent import Agent


async def sample_once(model: Model, request: SampleRequest, settings: dict[str, Any],
                      describe_failure: Callable[[Exception], Exception | None]) -> str:
    """The text of one model request for `request` (its messages, system, max_tokens)."""
    from pydantic_ai.direct import model_request
    from pydantic_ai.messages import (
        ModelRequest,
        ModelResponse,
        SystemPromptPart,
        TextPart,
        UserPromptPart,
    )
    from pydantic_ai.settings import ModelSettings

    messages: list[ModelMessage] = []
    if request.system:
        messages.append(ModelRequest(parts=[SystemPromptPart(request.system)]))
    for message in request.messages:
        role, content = message.get("role", "user"), str(message.get("content", ""))
        if role == "assistant":
            messages.append(ModelResponse(parts=[TextPart(content)]))
        elif messages and isinstance(messages[-1], ModelRequest):
            messages[-1].parts = [*messages[-1].parts, UserPromptPart(content)]
        else:
            messages.append(ModelRequest(parts=[UserPromptPart(content)]))
    chosen = ModelSettings(**settings)  # type: ignore[typeddict-item]
    if request.max_tokens is not None:
        chosen["max_tokens"] = request.max_tokens
    try:
        response = await model_request(model, messages, model_settings=chosen)
    except Exception as exc:
        failure = describe_failure(exc)
        if failure is None:
            raise
        raise failure from None
    return "".join(part.content for part in response.parts if isinstance(part, TextPart))


def find_subagent(paths: list[str], name: str) -> str:
    """The path of the subagent `name` (its path, or the last segment of exactly one)."""
    if name in paths:
        return name
    found = [path for path in paths if path.rsplit("/", 1)[-1] == name]
    if len(found) == 1:
        return found[0]
    known = ", ".join(f"`{p}`" for p in paths) or "none"
    raise InteractionError(f"the agent has no subagent `{name}`",
                           f"its subagents: {known}")


class SessionLog:
    """`ctx.log` of one message: to the listener and the `log` observers, on `loop`."""

    def __init__(self, agent: Agent, listener: Listener, loop: asyncio.AbstractEventLoop
                 ) -> None:
        self.agent, self.listener, self.loop = agent, listener, loop
        self.pending: set[asyncio.Task[None]] = set()

    def __call__(self, entry: LogEntry) -> None:  # any thread
        if self.loop.is_closed():
            return
        try:
            here = asyncio.get_running_loop()
        except RuntimeError:
            here = None
        if here is self.loop:
            self._deliver(entry)
        else:
            self.loop.call_soon_threadsafe(self._deliver, entry)

    def _deliver(self, entry: LogEntry) -> None:
        data = {"text": entry.text, "level": entry.level, "source": entry.source}
        self.listener(SessionEvent("log", data))
        task = self.loop.create_task(emit(self.agent.surface().pipeline, "log",
                                          text=entry.text, data=data))
        self.pending.add(task)
        task.add_done_callback(self.pending.discard)

    async def settle(self) -> None:
        """Wait for the observers of the logs so far (before the message ends)."""
        await asyncio.sleep(0)  # logs scheduled from other threads are delivered first
        while self.pending:
            await asyncio.gather(*list(self.pending), return_exceptions=True)

