"""The local extensions of a running agent: loaded over the root surface, reloadable.

`LocalLayer.apply(base)` returns the root surface with the local tools added and the
local hooks and observers after the agent's and the mounts' (sorted by extension
name). `reload()` closes the sources and loads them again (trust checked again).
Commands run here too, so `eve command`, `eve message` and MCP prompts share one path.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from eve_build.diagnostics import Diagnostic
from eve_build.errors import describe_exception
from eve_build.local.host import CommandInfo, Guideline, LocalHost
from eve_build.local.record import LoadRequest, LocalExtension, LocalSource
from eve_build.naming import derive_shown_name
from eve_build.runtime.commands import (
    CommandArgumentsError,
    complete_argument,
    derive_outcome,
    parse_arguments,
)
from eve_build.runtime.handlers import run_bound
from eve_build.runtime.local_methods import (
    CommandNotFoundError as CommandNotFoundError,  # re-exported
)
from eve_build.runtime.pipeline import HookPipeline
from eve_build.runtime.surface import Surface
from eve_build.sdk.local import Command
from eve_build.sdk.results import ContentPart


@dataclass(frozen=True)
class CommandReply:
    """What a command came to: its reply text (`ok`), or the error reply."""

    command: str
    extension: str
    ok: bool
    text: str
    content: tuple[ContentPart, ...] = ()  # the reply's parts (MCP prompts carry them)

    def to_json(self) -> dict[str, Any]:
        return {"command": self.command, "extension": self.extension,
                "status": "ok" if self.ok else "error", "text": self.text}


class LocalLayer:
    def __init__(self, sources: Sequence[LocalSource], request: LoadRequest) -> None:
        self.host = LocalHost(sources)
        self.request = request
        self._base: Surface | None = None

    @property
    def records(self) -> list[LocalExtension]:
        return self.host.records

    def apply(self, base: Surface) -> Surface:
        """Load the sources against `base` (the root surface) and return the combined one."""
        self._base = base
        taken = {name: _owner(entry.mount) for name, entry in base.tools.items()}
        self.host.load(self.request, taken)
        return self._combine(base)

    def rescan_nodes(self) -> tuple[Surface, list[Diagnostic]] | None:
        """Scan the nodes again when anything about them changed (None when nothing did):
        the new surface and the node records' diagnostics. Scripts are not reloaded."""
        assert self._base is not None
        for index, source in enumerate(self.host.sources):
            fingerprint = getattr(source, "fingerprint", None)
            if not callable(fingerprint):
                continue
            if fingerprint(self.request.eve_home) == getattr(source, "seen", None):
                return None
            records = self.host.reload_from(index, self.request)
            found = [d for r in records if r.origin == "node" for d in r.diagnostics]
            return self._combine(self._base), found
        return None

    def _combine(self, base: Surface) -> Surface:
        tools = {**self.host.tool_entries(), **base.tools}
        hooks = [*base.pipeline.hooks, *self.host.hook_entries()]
        pipeline = HookPipeline(hooks, base.pipeline.budget, base.pipeline.pool,
                                skipped=base.pipeline.skipped)  # unavailable mounts' hooks
        return Surface(base.path, tools, pipeline)

    def reload(self) -> Surface:
        assert self._base is not None
        self.host.close()
        return self.apply(self._base)

    def commands(self) -> list[CommandInfo]:
        return self.host.commands()

    def find_tool_owner(self, tool: str) -> tuple[str, str] | None:
        """Which node `tool` belongs to when that node is not working now (and why)."""
        for source in self.host.sources:
            finder = getattr(source, "find_tool_owner", None)
            owner = finder(tool) if callable(finder) else None
            if owner is not None:
                return owner  # type: ignore[no-any-return]
        return None

    def guidelines(self) -> list[Guideline]:
        return self.host.guidelines()

    async def arun_command(self, name: str, args: str | Mapping[str, Any]) -> CommandReply:
        """Run `/name args`: the reply, or an error reply when the arguments do not fit,
        it raised or gave no reply (`args`: the text after the name, or named arguments)."""
        record, command = self._find(name)
        assert command.run is not None and record.binding is not None
        try:
            parsed = parse_arguments(command, args)
        except CommandArgumentsError as exc:
            return CommandReply(name, record.name, False,
                                f"the command `{name}` of local extension `{record.name}`: "
                                f"{exc}")
        done = await run_bound(command.run, (parsed, record.context), binding=record.binding,
                               pool=self.request.pool)
        if done.ending == "raised":  # never raises itself, even when __str__ does
            return CommandReply(name, record.name, False,
                                describe_exception(done.error or RuntimeError()))
        outcome = derive_outcome(done.value)
        if outcome is None:
            return CommandReply(name, record.name, False,
                                f"the command `{name}` of local extension `{record.name}` "
                                f"returned {type(done.value).__name__}; a command returns the "
                                "reply as a str")  # (or content parts: docs/local-extensions.md)
        return CommandReply(name, record.name, True, outcome.text, outcome.content)

    async def acomplete_command(self, name: str, argument: str, value: str) -> list[str]:
        """The completions the command declares for `argument` given the partial `value`."""
        _record, command = self._find(name)
        return await complete_argument(command, argument, value)

    def _find(self, name: str) -> tuple[LocalExtension, Command]:
        found = self.host.find_command(name)
        if found is None:
            known = [c.name for c in self.commands()]
            close = difflib.get_close_matches(name, known, n=3)
            hint = (f"did you mean {', '.join(f'`{c}`' for c in close)}?" if close else
                    f"commands: {', '.join(f'`{c}`' for c in known)}" if known else
                    "no local extension defines a command")
            raise CommandNotFoundError(f"there is no command `{derive_shown_name(name)}`", hint)
        return found

    def close(self) -> None:
        self.host.close()


def _owner(mount: str | None) -> str:
    return f"mount `{mount}`" if mount is not None else "the agent"
