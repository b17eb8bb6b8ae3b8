"""The local-extension side of the Agent: records, commands, guidelines and reload.

`Agent` inherits these; they read the `LocalLayer` (eve_build.local.layer) the loader
gave it. Calls and commands are counted, so a reload never swaps the surface under
a running call.
"""

from __future__ import annotations

import contextlib
import dataclasses
import threading
from collections.abc import Coroutine, Iterator, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from eve_build.errors import EveBuildError
from eve_build.runtime import events
from eve_build.runtime.redaction import Redactor
from eve_build.runtime.surface import Surface

if TYPE_CHECKING:
    from eve_build.diagnostics import Diagnostic
    from eve_build.local.host import CommandInfo, Guideline
    from eve_build.local.layer import CommandReply, LocalLayer
    from eve_build.local.record import LocalExtension

T = TypeVar("T")


class CommandNotFoundError(EveBuildError, KeyError):
    """No loaded local extension has a command of that name."""

    def __str__(self) -> str:
        return self.message


class LocalMethods:
    _local: LocalLayer | None
    _surfaces: dict[str, Surface]
    _running: int
    _running_lock: threading.Lock
    redactor: Redactor

    def surface(self, subagent: str | None = None) -> Surface:
        raise NotImplementedError

    def _run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        raise NotImplementedError

    @property
    def local_extensions(self) -> list[LocalExtension]:
        """The records of the local extensions (empty when loaded without them)."""
        return [] if self._local is None else list(self._local.records)

    @property
    def local(self) -> LocalLayer | None:
        return self._local

    def commands(self) -> list[CommandInfo]:
        """The local extensions' commands, sorted by name."""
        return [] if self._local is None else self._local.commands()

    def guidelines(self) -> list[Guideline]:
        """The local extensions' guidelines, in load order (`eve prompt` shows them)."""
        return [] if self._local is None else self._local.guidelines()

    async def arun_command(self, name: str, args: str | Mapping[str, Any] = "") -> CommandReply:
        """Run a local command (`args`: the text after its name, or named arguments as a
        mapping); raises CommandNotFoundError for an unknown name."""
        if self._local is None:
            raise CommandNotFoundError(f"there is no command `{name}`",
                                       "the agent was loaded without local extensions")
        with self._counted():
            reply = await self._local.arun_command(name, args)
        if reply.ok:
            return reply
        return dataclasses.replace(reply, text=self.redactor.redact(reply.text))

    def run_command(self, name: str, args: str | Mapping[str, Any] = "") -> CommandReply:
        return self._run(self.arun_command(name, args))

    async def acomplete_command(self, name: str, argument: str, value: str) -> list[str]:
        """Completions of one argument of a local command (what it declares, filtered);
        raises CommandNotFoundError for an unknown name."""
        if self._local is None:
            raise CommandNotFoundError(f"there is no command `{name}`",
                                       "the agent was loaded without local extensions")
        return await self._local.acomplete_command(name, argument, value)

    def reload_extensions(self) -> list[LocalExtension]:
        """Load the local extensions again (trust checked again); refused during a call."""
        with self._running_lock:
            if self._running:
                raise EveBuildError("cannot reload the local extensions while a call is running",
                                    "reload when the call has ended")
            if self._local is not None:
                self._surfaces[""] = self._local.reload()
        events.emit_blocking(self.surface().pipeline, "extensions.changed",
                             extensions=[r.name for r in self.local_extensions if r.loaded])
        return self.local_extensions

    def rescan_nodes(self) -> list[Diagnostic]:
        """Pick up nodes started, stopped, restarted or dropped since the load (or the last
        rescan), for a long-running host between turns; scripts are not reloaded.

        Cheap when nothing changed (a few `stat` calls per registered node): then it
        returns `[]` and changes nothing. Otherwise it scans the nodes again, swaps the
        root surface, emits `extensions.changed` and returns the diagnostics of the
        node records (`node/stale`, `node/describe-failed`, `local/name-taken`...).
        A node that is gone afterwards fails only its own tools, naming the node and
        `eve node start NAME`. Refused (EveBuildError) while a call is running.
        """
        if self._local is None:
            return []
        with self._running_lock:
            if self._running:
                raise EveBuildError("cannot rescan the nodes while a call is running",
                                    "rescan between turns, when no call runs")
            rescanned = self._local.rescan_nodes()
            if rescanned is None:
                return []
            self._surfaces[""], found = rescanned
        events.emit_blocking(self.surface().pipeline, "extensions.changed",
                             extensions=[r.name for r in self.local_extensions if r.loaded])
        return found

    def _missing_tool(self, name: str, surface: Surface, subagent: str | None) -> EveBuildError:
        """The ToolNotFoundError for `name`: a node's tool names the node and its start."""
        from eve_build.naming import derive_shown_name
        from eve_build.runtime.calls import ToolNotFoundError, suggest_tools

        owner = (self._local.find_tool_owner(name) if self._local is not None and not subagent
                 else None)
        shown = derive_shown_name(name)  # a 100 kB name is not echoed whole
        if owner is None:
            return ToolNotFoundError(f"the agent has no tool `{shown}`",
                                     suggest_tools(name, surface.tools))
        node, why = owner
        return ToolNotFoundError(f"the agent has no tool `{shown}` now: it is a tool of node "
                                 f"`{node}`, which {why}",
                                 f"start the node with `eve node start {node}`; the next call "
                                 "finds it")

    @contextlib.contextmanager
    def _counted(self) -> Iterator[None]:
        with self._running_lock:
            self._running += 1
        try:
            yield
        finally:
            with self._running_lock:
                self._running -= 1
