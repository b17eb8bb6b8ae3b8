"""Channels and schedules of a loaded agent, imported and bound to their mounts.

The runtime loader binds tools and hooks; the serve host binds the other two
kinds the same way, through the agent's Resolver, so a channel of the mount `crm`
reads `crm`'s config and state and one of `company` reads `company`'s.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from eve_build.diagnostics import Diagnostic
from eve_build.errors import DiagnosticsError
from eve_build.formats.compiled import CompiledContribution, walk_trees
from eve_build.runtime.agent import Agent
from eve_build.sdk.binding import Binding
from eve_build.sdk.definitions import Channel, Schedule


@dataclass(frozen=True)
class BoundContribution:
    """One channel or schedule: its compiled record, definition and mount binding."""

    item: CompiledContribution
    definition: Any  # Channel or Schedule
    binding: Binding
    tree: str  # the agent tree's path: "" for the root agent, else the subagent's

    @property
    def name(self) -> str:
        return self.item.name


def find_bound(agent: Agent, kind: str) -> list[BoundContribution]:
    """Every `channels` or `schedules` contribution of every tree, bound.

    Raises DiagnosticsError when a definition cannot be imported or bound.
    """
    resolver = agent.resolver
    if resolver is None:
        raise DiagnosticsError("cannot serve the agent", [])
    kinds: tuple[type, ...] = (Channel,) if kind == "channels" else (Schedule,)
    found: list[Diagnostic] = []
    bound: list[BoundContribution] = []
    for tree in walk_trees(agent.compiled.root):
        path = tree.path if tree is not agent.compiled.root else ""
        for item in getattr(tree, kind):
            definition = resolver.definition(item, kinds, found)
            binding = resolver.binding(item, found)
            if definition is not None and binding is not None:
                bound.append(BoundContribution(item, definition, binding, path))
    if found:
        raise DiagnosticsError("cannot serve the agent", found)
    return bound
