"""Models that do not stream: an OpenAI-compatible server that answers only whole chat
completions works, and each message then reaches listeners as one `message.update`.

    model = StreamOrNot(open_model(choice), streams=True)   # open_model does this

A session streams every request (the relay turns chunks into `message.update`). A
server that answers a streaming request with a whole completion gives the provider's
client no chunk at all (pydantic-ai: `ModelEmptyResponseError`, before anything is
streamed); that answer is taken as "this server does not stream": the same request is
sent again without streaming, the whole answer is replayed to the relay as one chunk
per part (pydantic-ai's `CompletedStreamedResponse`), and every later request to that
server and model in this process goes without streaming. `EVE_MODEL_STREAM=0` skips the
first try.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from pydantic_ai import RunContext
from pydantic_ai.exceptions import ModelEmptyResponseError
from pydantic_ai.messages import ModelMessage
from pydantic_ai.models import (
    CompletedStreamedResponse,
    Model,
    ModelRequestParameters,
    StreamedResponse,
)
from pydantic_ai.models.wrapper import WrapperModel
from pydantic_ai.settings import ModelSettings

_NOT_STREAMING: set[tuple[str, str]] = set()
"""(endpoint, model name) of the servers found not to stream, in this process."""


class StreamOrNot(WrapperModel):
    """`wrapped`, streamed while its server streams, else asked for whole answers."""

    def __init__(self, wrapped: Model, *, streams: bool = True) -> None:
        super().__init__(wrapped)
        self._streams = streams

    @property
    def streams(self) -> bool:
        return self._streams and self._key() not in _NOT_STREAMING

    def _key(self) -> tuple[str, str]:
        return str(getattr(self.wrapped, "base_url", "") or self.wrapped.system), \
            self.wrapped.model_name

    @contextlib.asynccontextmanager
    async def request_stream(
        self, messages: list[ModelMessage], model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
        run_context: RunContext[Any] | None = None,
    ) -> AsyncIterator[StreamedResponse]:
        if self.streams:
            async with contextlib.AsyncExitStack() as stack:
                try:
                    stream = await stack.enter_async_context(self.wrapped.request_stream(
                        messages, model_settings, model_request_parameters, run_context))
                except ModelEmptyResponseError:
                    _NOT_STREAMING.add(self._key())  # a whole answer, or none: ask whole
                else:
                    yield stream
                    return
        response = await self.wrapped.request(messages, model_settings,
                                              model_request_parameters)
        yield CompletedStreamedResponse(response,
                                        model_request_parameters=model_request_parameters,
                                        replay_events=True)
