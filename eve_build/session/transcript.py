"""What a session run came to: the reply, each tool call, usage, and the events of a turn.

`RunResult.to_json()` is the `eve run --json` document's body and the HTTP reply
(schema: eve_build/schemas/run.json). A `SessionEvent` is one thing a listener (the
terminal, an SSE stream) is told while a turn runs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ToolCallRecord:
    """One tool call of the model: `status` is the host's (`ok`, `failed`, `blocked`,
    `refused`); `result` when ok, else `reason`; `content` when the tool returned
    content parts (runtime/content.py's JSON)."""

    name: str
    arguments: dict[str, Any]
    status: str
    result: Any = None
    reason: str | None = None
    subagent: str | None = None
    content: list[dict[str, Any]] | None = None  # the parts as JSON, when not a plain value

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"name": self.name, "arguments": self.arguments,
                                "status": self.status}
        if self.status == "ok":
            data["result"] = self.result
        else:
            data["reason"] = self.reason or ""
        if self.content is not None:
            data["content"] = self.content
        if self.subagent is not None:
            data["subagent"] = self.subagent
        return data


@dataclass
class Usage:
    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    tool_calls: int = 0

    def to_json(self) -> dict[str, int]:
        return {"requests": self.requests, "inputTokens": self.input_tokens,
                "outputTokens": self.output_tokens, "toolCalls": self.tool_calls}

    def to_store(self) -> dict[str, int]:
        return {"requests": self.requests, "input_tokens": self.input_tokens,
                "output_tokens": self.output_tokens, "tool_calls": self.tool_calls}


@dataclass
class RunResult:
    """`outcome`: `turn` (the model answered), `handled` (a hook answered, no turn) or
    `command` (a local command replied; `ok` False when it raised)."""

    session: str
    reply: str
    outcome: str = "turn"
    ok: bool = True
    model: str | None = None
    turns: int = 0
    tool_calls: list[ToolCallRecord] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    custom: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"session": self.session, "reply": self.reply, "outcome": self.outcome,
                "model": self.model, "turns": self.turns,
                "toolCalls": [call.to_json() for call in self.tool_calls],
                "usage": self.usage.to_json(), "custom": list(self.custom)}


@dataclass(frozen=True)
class SessionEvent:
    """`kind`: `token` (text), `tool.start` (name, arguments), `tool.update` (name,
    text), `tool.end` (a tool call's JSON), `custom` (a custom message), `turn.start`,
    `turn.end`."""

    kind: str
    data: dict[str, Any]


Listener = Callable[[SessionEvent], None]
"""Told of each SessionEvent as it happens (must not block: it runs on the loop)."""


def ignore(event: SessionEvent) -> None:
    """The listener when nobody listens."""
