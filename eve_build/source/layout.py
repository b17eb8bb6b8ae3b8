"""What discovery finds: the entries of an agent-shaped tree, as plain data."""

from __future__ import annotations

from dataclasses import dataclass, field

from eve_build.naming import ContributionName
from eve_build.slots import Slot


@dataclass(frozen=True)
class ModuleEntry:
    """A module in a module slot: `tools/admin/reset.py` -> tool `admin-reset`."""

    slot: Slot
    name: ContributionName
    path: str  # relative to the tree's source root, POSIX

    @property
    def module(self) -> str:
        """The dotted module path relative to the source root."""
        return self.path.removesuffix(".py").replace("/", ".")


@dataclass(frozen=True)
class SkillEntry:
    name: ContributionName
    path: str  # SKILL.md of a packaged skill, or the flat .md file
    packaged: bool
    assets: tuple[str, ...] = ()


@dataclass
class AgentTree:
    """One agent-shaped root: an extension's source root, an agent, or a subagent.

    `prefix` is the tree's folder relative to the source root ("" or
    "subagents/reviewer/"); `path` is the subagent path ("reviewer/checker").
    """

    prefix: str = ""
    path: str = ""
    name: ContributionName | None = None
    modules: list[ModuleEntry] = field(default_factory=list)
    skills: list[SkillEntry] = field(default_factory=list)
    instructions: str | None = None
    agent_module: str | None = None
    subagents: list[AgentTree] = field(default_factory=list)
    mounts: list[str] = field(default_factory=list)
    overrides: list[ModuleEntry] = field(default_factory=list)
    skill_overrides: list[SkillEntry] = field(default_factory=list)  # `skills/crm__triage.md`
    subagent_overrides: list[AgentTree] = field(default_factory=list)  # folders overriding a
    # mounted subagent's contributions: `subagents/crm__reviewer/` (or beside a mount)
    """Agent trees only: modules named `<ns>__<name>` (override a mounted contribution)."""

    def modules_of(self, slot: Slot) -> list[ModuleEntry]:
        return [m for m in self.modules if m.slot == slot]

    def walk(self) -> list[AgentTree]:
        """This tree and every subagent below it, parents first."""
        trees = [self]
        for sub in self.subagents:
            trees.extend(sub.walk())
        return trees


@dataclass
class SourceLayout:
    """The whole discovered source: the root tree and every file to ship."""

    tree: AgentTree
    files: list[str] = field(default_factory=list)
