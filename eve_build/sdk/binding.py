"""Which mount is running: the context variable the host sets around every call.

Two mounts of one package share the same imported modules, so `extension.config`
and state cannot live in module globals. The host binds a mount around each
contribution call (also across `await`, since context variables follow tasks), and
the SDK reads the binding from here.
"""

from __future__ import annotations

from collections.abc import Callable, MutableMapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, TypeVar

from eve_build.sdk import interaction

F = TypeVar("F", bound=Callable[..., Any])
HOST_SIDE = "__eve_host_side__"


def host_side(function: F) -> F:
    """Mark a coroutine function the host made itself (a proxy to a node or to an MCP
    connection): it never blocks its loop and may hold objects of the host's loop, so
    the host runs it on its own loop, not on the user loop of user coroutines
    (eve_build.runtime.userloop). Not for extension code."""
    setattr(function, HOST_SIDE, True)
    return function


class UnboundError(RuntimeError):
    """Raised when mount-scoped data is read outside any mounted call."""


@dataclass
class Binding:
    """One mount of one extension (or the agent itself, with `extension` None)."""

    extension: object | None
    config: Any
    mount_path: str
    namespace: str | None = None
    states: MutableMapping[str, Any] = field(default_factory=dict)
    unavailable: str | None = None  # why the mount could not open (an unset env variable):
    # its tools fail with this reason and its hooks do not run; other mounts keep working


_CURRENT: ContextVar[Binding | None] = ContextVar("eve_build_binding", default=None)


def current_binding() -> Binding | None:
    return _CURRENT.get()


class bind:  # lower case: used as a function, `with bind(binding):`
    """Run the body as `binding`'s mount: `extension.config` and state resolve to it.

    A class, not a generator: it wraps every tool, hook and channel call.
    """

    __slots__ = ("_binding", "_token")

    def __init__(self, binding: Binding) -> None:
        self._binding = binding

    def __enter__(self) -> Binding:
        self._token = _CURRENT.set(self._binding)
        return self._binding

    def __exit__(self, *_exc: object) -> None:
        _CURRENT.reset(self._token)


def derive_state_key(mount_path: str, name: str) -> str:
    """The durable key of a state slot: logical mount path plus state name."""
    return f"{mount_path}:{name}" if mount_path else name


@dataclass
class ToolContext:
    """The `ctx` a tool's execute (and other handlers) receives."""

    name: str
    namespace: str | None = None
    progress: Callable[[str], None] | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def report_progress(self, text: str, progress: float | None = None,
                        total: float | None = None) -> None:
        """Report progress without touching the transcript (numeric where shown).

        One path per report: numeric progress goes to the surface's progress answerer
        when it has one (which shows the text too), everything else to the text path."""
        numeric = progress is not None and interaction.current_interaction().progress
        if self.progress is not None and not numeric:
            self.progress(text)
        interaction.report_progress(text, progress, total, source=self.name)

    async def ask(self, message: str, schema: Any) -> Any:
        """Ask the person; the answer as a `schema` instance, or Declined/Cancelled raised."""
        return await interaction.ask_person(message, schema, source=self.name)

    async def sample(self, prompt: Any, *, max_tokens: int | None = None,
                     system: str | None = None) -> str:
        """Ask a model (the session's, else an MCP client's): its reply text."""
        return await interaction.sample_model(prompt, max_tokens=max_tokens, system=system,
                                              source=self.name)

    async def run_subagent(self, name: str, text: str) -> str:
        """Run one of the agent's subagents as a session of its own; its reply."""
        return await interaction.run_subagent(name, text, source=self.name)

    def log(self, text: str, level: str = "info") -> None:
        """A log line (RFC 5424 level) for observers, `-v`, SSE and MCP clients."""
        interaction.write_log(text, level, source=self.name)

    @property
    def model(self) -> str | None:
        """The session's model name, None outside a session."""
        return interaction.current_interaction().model
