"""Place local extensions beside the agent: shadowing, collisions, tools, hooks, commands.

The host takes the records of every source in order (scripts: `-e`, project,
global; then any other source such as project nodes). A later record with the name
of an earlier one is `shadowed`. A tool whose name the agent, a mount or an earlier
local extension already has is left out with a warning naming winner and loser, as
is a command an earlier extension already has; the rest of that extension loads.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from eve_build.diagnostics import Diagnostic, Diagnostics, warning
from eve_build.local.context import LocalToolContext
from eve_build.local.record import LoadRequest, LocalExtension, LocalSource, derive_binding
from eve_build.runtime.commands import CommandArgument, derive_arguments
from eve_build.runtime.pipeline import HookEntry
from eve_build.runtime.tools import ToolEntry
from eve_build.runtime.trace import HookSource
from eve_build.sdk.binding import Binding, ToolContext
from eve_build.sdk.definitions import Hook
from eve_build.sdk.local import Command


@dataclass(frozen=True)
class CommandInfo:
    """A command as listings (and MCP prompts) show it."""

    name: str
    description: str
    arg_hint: str | None
    extension: str
    arguments: tuple[CommandArgument, ...] = ()  # named arguments (`define_command(input=)`)
    named: bool = False  # declared with an input model: `arguments` are its fields


@dataclass(frozen=True)
class Guideline:
    extension: str
    text: str


class LocalHost:
    """The local extensions of one agent, loaded from `sources` in order."""

    def __init__(self, sources: Sequence[LocalSource]) -> None:
        self.sources = tuple(sources)
        self.records: list[LocalExtension] = []
        self._by_source: list[list[LocalExtension]] = []  # the records of each source
        self._placements: list[_Placement] = []  # the state before each source, then after

    def load(self, request: LoadRequest, taken: Mapping[str, str]) -> list[LocalExtension]:
        """Load every source; `taken` maps the agent's tool names to who owns them."""
        self._placements = [_Placement(dict(taken), {}, {})]
        self._by_source = []
        return self.reload_from(0, request)

    def reload_from(self, index: int, request: LoadRequest) -> list[LocalExtension]:
        """Load sources `index`... again (closing them first); earlier ones stay as placed.

        Sources load in order and a later one never changes how an earlier one was
        placed, so the placement state before `index` is kept and reused.
        """
        for source in self.sources[index:]:
            if self._by_source:
                source.close()
        del self._by_source[index:], self._placements[index + 1:]
        for source in self.sources[index:]:
            state = self._placements[-1].copy()
            records = source.load(request)
            for record in records:
                _place(record, state, request)
            self._by_source.append(records)
            self._placements.append(state)
        self.records = [record for records in self._by_source for record in records]
        return self.records

    @property
    def loaded(self) -> list[LocalExtension]:
        return [r for r in self.records if r.loaded]

    @property
    def diagnostics(self) -> list[Diagnostic]:
        """Every record's diagnostics once (the untrusted-folder notice is shared)."""
        collected = Diagnostics()
        for record in self.records:
            collected.extend(record.diagnostics)
        return list(collected)

    def tool_entries(self) -> dict[str, ToolEntry]:
        entries: dict[str, ToolEntry] = {}
        for record in self.loaded:
            binding = _binding(record)
            for name, tool in record.tools.items():
                entries[name] = ToolEntry(
                    name, name, None, tool, f"local:{record.name}/{name}", binding, record.path,
                    make_context=_tool_context(record.context))
        return entries

    def hook_entries(self) -> list[HookEntry]:
        """One entry per extension with hooks or observers, sorted by extension name."""
        entries: list[HookEntry] = []
        for record in sorted(self.loaded, key=lambda r: r.name):
            events = {**record.events, **record.hooks}
            if events:
                source = HookSource(None, record.name, origin=record.origin)
                entries.append(HookEntry(source, Hook(events=events), _binding(record),
                                         context=record.context))
        return entries

    def commands(self) -> list[CommandInfo]:
        return sorted((CommandInfo(name, command.description or "", command.arg_hint, r.name,
                                   derive_arguments(command), command.input is not None)
                       for r in self.loaded for name, command in r.commands.items()),
                      key=lambda c: c.name)

    def find_command(self, name: str) -> tuple[LocalExtension, Command] | None:
        for record in self.loaded:
            if name in record.commands:
                return record, record.commands[name]
        return None

    def guidelines(self) -> list[Guideline]:
        """Every loaded extension's guidelines, in load order."""
        return [Guideline(r.name, text) for r in self.loaded for text in r.guidelines]

    def close(self) -> None:
        for source in self.sources:
            source.close()


@dataclass
class _Placement:
    """Who owns which tool and command name, and which extension names are taken."""

    owners: dict[str, str]
    commands: dict[str, str]
    seen: dict[str, LocalExtension]

    def copy(self) -> _Placement:
        return _Placement(dict(self.owners), dict(self.commands), dict(self.seen))


def _place(record: LocalExtension, state: _Placement, request: LoadRequest) -> None:
    """Shadow, check and claim one record's contributions (in load order)."""
    earlier = state.seen.get(record.name)
    if earlier is not None and record.status in ("loaded", "dropped"):
        record.status = "shadowed"
        record.spec = None
        return
    if record.status != "untrusted":
        state.seen.setdefault(record.name, record)
    if not record.loaded or record.spec is None:
        return
    if record.binding is None:
        record.binding = derive_binding(record.name, request.states)
    from eve_build.local.spec import derive_contributions  # only with a loaded extension

    derive_contributions(record, record.spec)
    record.tools = _claim(record, "tool", record.tools, state.owners)
    record.commands = _claim(record, "command", record.commands, state.commands)


def _claim(record: LocalExtension, kind: str, values: dict[str, Any],
           owners: dict[str, str]) -> dict[str, Any]:
    kept: dict[str, Any] = {}
    loser = f"local extension `{record.name}` ({record.origin}, `{record.path}`)"
    for name, value in values.items():
        winner = owners.get(name)
        if winner is not None:
            record.diagnostics.append(warning(
                "local/name-taken", record.path,
                f"the {kind} `{name}` of {loser} is left out: {winner} already has it",
                f"rename the {kind} in `{record.path}`; names of local {kind}s are not prefixed"))
            continue
        owners[name] = f"local extension `{record.name}` ({record.origin})"
        kept[name] = value
    return kept


def _binding(record: LocalExtension) -> Binding:
    assert record.binding is not None
    return record.binding


def _tool_context(local: Any) -> Any:
    def make(tool: ToolContext) -> Any:
        return LocalToolContext(tool, local)

    return make
