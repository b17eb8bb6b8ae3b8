"""A turn's new messages as the session store keeps them: exactly what
`ModelMessagesTypeAdapter.dump_python(messages, mode="json")` returns.

Building that adapter builds pydantic-ai's whole message schema, about 0.1 s once per
process, which a one-message `eve run` pays only to store its turn. The messages of a
plain turn (a prompt, text, tool calls and their results) serialize the same by
inference (`pydantic_core.to_jsonable_python`): their classes have no serializer of
their own on a field, and the ones that do (a tool result, usage) carry the class's own
pydantic serializer, which inference uses. Anything else (instruction parts, citations,
files in a prompt, retry information, a subclass) goes through the adapter.
tests/session/test_message_dump.py holds the two ways equal.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def dump_messages(messages: Sequence[Any]) -> list[Any]:
    """The messages as JSON-ready values, as the adapter dumps them."""
    from pydantic_ai.messages import ModelMessagesTypeAdapter

    if all(is_plain_message(message) for message in messages):
        from pydantic_core import to_jsonable_python

        dumped = to_jsonable_python(list(messages), bytes_mode="base64")
        if isinstance(dumped, list):
            return dumped
    return list(ModelMessagesTypeAdapter.dump_python(list(messages), mode="json"))


def is_plain_message(message: Any) -> bool:
    """Whether inference dumps `message` as the adapter does (see the module's text)."""
    from pydantic_ai import messages as m
    from pydantic_ai.usage import RequestUsage

    kind = type(message)
    if kind is m.ModelRequest:
        return all(_plain_request_part(part) for part in message.parts)
    if kind is m.ModelResponse:
        return (type(message.usage) is RequestUsage and message.workspace_ref is None
                and message.failed_attempts is None
                and all(_plain_response_part(part) for part in message.parts))
    return False


def _plain_request_part(part: Any) -> bool:
    from pydantic_ai import messages as m

    kind = type(part)
    if kind is m.UserPromptPart:
        return isinstance(part.content, str)
    if kind is m.SystemPromptPart:
        return True
    return kind is m.ToolReturnPart and part.retry is None


def _plain_response_part(part: Any) -> bool:
    from pydantic_ai import messages as m

    kind = type(part)
    if kind is m.TextPart:
        return part.citations is None
    return kind is m.ToolCallPart or kind is m.ThinkingPart
