"""What hook handlers receive and may return."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

INTERCEPTING_EVENTS = ("action.call", "action.result", "message.received")
OBSERVED_EVENTS = (
    "session.start",
    "session.end",
    "turn.start",
    "turn.end",
    "message.sent",
    "schedule.run",
    "channel.request",
)
EVENT_CLASSES: dict[str, tuple[str, ...]] = {
    "log": ("log",),  # each ctx.log (data: text, level, source)
    "lifecycle": ("agent.start", "agent.end", "turn.start", "turn.end", "message.start",
                  "message.end"),
    "tools": ("tool.start", "tool.update", "tool.end"),
    "stream": ("message.update",),
    "extension": ("extension.event", "extensions.changed"),
    "mcp": ("mcp.connected", "mcp.disconnected", "mcp.failed"),  # the agent's connections
}
"""The observed event classes of DESIGN section 7 (a Spec's `events` may name a class)."""
CLASSED_EVENTS = tuple(name for names in EVENT_CLASSES.values() for name in names)
KNOWN_EVENTS = tuple(dict.fromkeys((*INTERCEPTING_EVENTS, *OBSERVED_EVENTS, *CLASSED_EVENTS)))
ALL_EVENTS = "*"


@dataclass(frozen=True)
class Event:
    """An event as a handler sees it. `arguments` is a dict with string keys.

    `action.result`: `result` is the value (or the tool's `ToolResult` when it returned
    content parts), None for a failed call; `error` is why the call failed and
    `is_error` says whether it did.
    """

    name: str
    tool: str | None = None
    arguments: dict[str, Any] | None = None
    result: Any = None
    text: str | None = None
    data: dict[str, Any] = field(default_factory=dict)
    identity: str | None = None  # action.*: the identity of the tool's original definition
    error: str | None = None  # action.result: why the call failed
    is_error: bool = False  # action.result: the call failed (or a handler made it an error)


@dataclass(frozen=True)
class Rewrite:
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Block:
    reason: str


@dataclass(frozen=True)
class Transform:
    text: str


@dataclass(frozen=True)
class Handled:
    reply: str


def rewrite(arguments: dict[str, Any]) -> Rewrite:
    """From an `action.call` handler: go on with these arguments instead."""
    return Rewrite(dict(arguments))


def block(reason: str) -> Block:
    """From an `action.call` handler: stop the call, telling the model why."""
    return Block(reason)


def transform(text: str) -> Transform:
    """From a `message.received` handler: go on with this text instead."""
    return Transform(text)


def handled(reply: str) -> Handled:
    """From a `message.received` handler: answer now; no turn starts."""
    return Handled(reply)
