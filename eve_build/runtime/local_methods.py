"""The local-extension side of the Agent: records, commands, guidelines and reload.

`Agent` inherits these; they read the `LocalLayer` (eve_build.local.layer) the loader
gave it. Calls and commands are counted, so a reload never swaps the surface under
a running call.
"""

from __future__ import annotations

import contextlib
import dataclasses
import threading
from collections.abc import Coroutine, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

from eve_build.errors import EveBuildError
from eve_build.runtime import events
from eve_build.runtime.redaction import Redactor
from eve_build.runtime.surface import Surface

if TYPE_CHECKING:
    from eve_build.local.host import CommandInfo, Guideline
    from eve_build.local.layer import CommandReply, LocalLayer
    from eve_build.local.record import LocalExtension

T = TypeVar("T")


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

    async def arun_command(self, name: str, args: str = "") -> CommandReply:
        """Run a local command; raises CommandNotFoundError for an unknown name."""
        from eve_build.local.layer import CommandNotFoundError

        if self._local is None:
            raise CommandNotFoundError(f"there is no command `{name}`",
                                       "the agent was loaded without local extensions")
        with self._counted():
            reply = await self._local.arun_command(name, args)
        if reply.ok:
            return reply
        return dataclasses.replace(reply, text=self.redactor.redact(reply.text))

    def run_command(self, name: str, args: str = "") -> CommandReply:
        return self._run(self.arun_command(name, args))

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

    @contextlib.contextmanager
    def _counted(self) -> Iterator[None]:
        with self._running_lock:
            self._running += 1
        try:
            yield
        finally:
            with self._running_lock:
                self._running -= 1
