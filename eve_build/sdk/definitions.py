"""The definitions an author writes: plain, immutable, typed values.

`define_*` in `eve_build.sdk` create them. Builds check them and the host runs
them; nothing here imports pydantic or touches the disk.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from eve_build.sdk.binding import UnboundError, current_binding, derive_state_key

if TYPE_CHECKING:
    from pydantic import BaseModel

    from eve_build.sdk.approval import Approval


@dataclass(frozen=True, eq=False)
class Extension:
    """The extension itself; `config` is the bound, validated config of the running mount."""

    config_model: type[BaseModel] | None = None
    identity: str = ""

    @property
    def config(self) -> Any:
        binding = current_binding()
        if binding is None or binding.extension is not self:
            raise UnboundError(
                "`extension.config` was read outside a mounted call: it only has a value "
                "while one of this extension's contributions runs for a mount"
            )
        return binding.config


@dataclass(frozen=True, kw_only=True)
class Tool:
    description: str | None = None
    input: type[BaseModel] | None = None
    execute: Callable[..., Any] | None = None
    output: type[BaseModel] | None = None
    approval: Approval | None = None
    deferred: bool = False
    available_in_subagents: bool = True
    timeout: float | None = None  # seconds; None: the host's documented default
    prompt_snippet: str | None = None  # the tool's line in the system prompt
    prompt_guidelines: tuple[str, ...] = ()  # lines added to the prompt's guidelines
    identity: str = field(default="", compare=False)

    def replace(self, **changes: Any) -> Tool:
        """A copy with some fields changed; it keeps the original's identity."""
        return dataclasses.replace(self, **changes)


@dataclass(frozen=True)
class DisabledTool:
    """`tool = disable_tool()` in an override slot removes the tool."""


@dataclass(frozen=True, kw_only=True)
class Dynamic:
    resolve: Callable[..., Any] | None = None
    identity: str = field(default="", compare=False)


@dataclass(frozen=True, kw_only=True)
class Channel:
    route: str | None = None
    handle: Callable[..., Any] | None = None
    method: str = "POST"
    identity: str = field(default="", compare=False)

    def replace(self, **changes: Any) -> Channel:
        """A copy with some fields changed (`route=`, `method=`, `handle=`); it keeps the
        original's identity, so an override can move a mounted channel to another route."""
        return dataclasses.replace(self, **changes)


@dataclass(frozen=True, kw_only=True)
class Connection:
    url: Any = None
    kind: str = "mcp"
    headers: Mapping[str, Any] | None = None
    identity: str = field(default="", compare=False)


@dataclass(frozen=True, kw_only=True)
class Schedule:
    cron: str | None = None
    run: Callable[..., Any] | None = None
    markdown: str | None = None
    identity: str = field(default="", compare=False)


@dataclass(frozen=True, kw_only=True)
class Agent:
    description: str | None = None
    model: str | None = None


@dataclass(frozen=True, kw_only=True)
class Hook:
    events: Mapping[str, Callable[..., Any]] = field(default_factory=dict)
    identity: str = field(default="", compare=False)


@dataclass(frozen=True, kw_only=True)
class Instructions:
    render: Callable[..., Any] | None = None


@dataclass(frozen=True, eq=False)
class State:
    """A per-mount durable value; read and written only inside a mounted call."""

    name: str
    initial: Callable[[], Any]
    module: str = ""  # where define_state() was called, so re-exports are not counted twice
    line: int | None = None  # the line of that call, for diagnostics

    def _where(self) -> tuple[dict[str, Any] | Any, str]:
        binding = current_binding()
        if binding is None:
            raise UnboundError(
                f"state `{self.name}` was used outside a mounted call: it belongs to a mount"
            )
        return binding.states, derive_state_key(binding.mount_path, self.name)

    def _key(self) -> tuple[dict[str, Any] | Any, str]:
        store, key = self._where()
        if key not in store:  # setdefault: a durable store creates it atomically
            store.setdefault(key, self.initial())
        return store, key

    def get(self) -> Any:
        store, key = self._key()
        return store[key]

    def set(self, value: Any) -> None:
        store, key = self._where()
        store[key] = value

    def update(self, change: Callable[[Any], Any]) -> Any:
        """Replace the value with `change(value)`; with a durable store (`eve serve`) the
        read and the write are one transaction, so no concurrent update is lost."""
        store, key = self._where()
        atomic = getattr(store, "update_atomically", None)
        if atomic is not None:
            return atomic(key, change, self.initial)
        store, key = self._key()
        store[key] = change(store[key])
        return store[key]


DEFINITION_TYPES: dict[str, tuple[type, ...]] = {
    "extension": (Extension,),
    "tool": (Tool, Dynamic),
    "channel": (Channel,),
    "connection": (Connection, Dynamic),
    "schedule": (Schedule,),
    "hook": (Hook,),
    "agent": (Agent,),
    "instructions": (Instructions,),
}
"""What each slot attribute may hold (overrides may also hold DisabledTool)."""


def derive_kind(value: object) -> str:
    """A definition's kind in words, for messages."""
    names = {
        Extension: "define_extension()", Tool: "define_tool()", Dynamic: "define_dynamic()",
        Channel: "define_channel()", Connection: "define_connection()",
        Schedule: "define_schedule()", Hook: "define_hook()", Agent: "define_agent()",
        Instructions: "define_instructions()", DisabledTool: "disable_tool()",
        State: "define_state()",
    }
    return names.get(type(value), f"a {type(value).__name__}")
