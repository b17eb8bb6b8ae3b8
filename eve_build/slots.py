"""The slot table: which folders an agent or extension has and what each holds.

This is data, kept in one place. Discovery, validation, the manifest and the
consumer's namespace rules all read it.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from typing import Literal

Layout = Literal["modules", "skills", "subagents"]


@dataclass(frozen=True)
class Slot:
    """One slot folder.

    `attribute` is the module-level name a definition must be bound to; `joiner`
    joins nested path segments into a name (None: the slot is flat);
    `capability` is the manifest capability the slot needs, `dynamic_capability`
    the one a `define_dynamic` in it needs; `prefixed` says whether a mounted
    contribution gets the `<ns>__` prefix.
    """

    directory: str
    kind: str
    attribute: str
    layout: Layout
    joiner: str | None
    capability: str
    dynamic_capability: str | None
    prefixed: bool

    @property
    def nested(self) -> bool:
        return self.joiner is not None


TOOLS = Slot("tools", "tool", "tool", "modules", "-", "tool", "dynamicTool", True)
CHANNELS = Slot("channels", "channel", "channel", "modules", None, "channel", None, True)
CONNECTIONS = Slot(
    "connections", "connection", "connection", "modules", None, "connection",
    "dynamicConnection", True,
)
SCHEDULES = Slot("schedules", "schedule", "schedule", "modules", "/", "schedule", None, True)
HOOKS = Slot("hooks", "hook", "hook", "modules", "/", "hook", None, False)
SKILLS = Slot("skills", "skill", "skill", "skills", None, "skill", None, True)
SUBAGENTS = Slot("subagents", "subagent", "agent", "subagents", None, "subagent", None, True)

SLOTS: tuple[Slot, ...] = (TOOLS, CHANNELS, CONNECTIONS, SCHEDULES, HOOKS, SKILLS, SUBAGENTS)
SLOTS_BY_DIRECTORY = {slot.directory: slot for slot in SLOTS}

EXTENSION_MODULE = "extension.py"
EXTENSION_ATTRIBUTE = "extension"
AGENT_MODULE = "agent.py"
AGENT_ATTRIBUTE = "agent"
INSTRUCTIONS_MARKDOWN = "instructions.md"
INSTRUCTIONS_MODULE = "instructions.py"
INSTRUCTIONS_ATTRIBUTE = "instructions"
MOUNTS_DIRECTORY = "extensions"
MOUNT_ATTRIBUTE = "mount"
SKILL_FILE = "SKILL.md"

RESERVED_EXTENSION_ENTRIES: tuple[str, ...] = (
    "agent.py",
    "extensions",
    "instrumentation",
    "instrumentation.py",
    "memory",
    "memory.py",
    "sandbox",
    "sandbox.py",
)
"""Entries that belong to the consuming agent and must not be at an extension root."""

IGNORED_DIRECTORIES = ("__pycache__", "tests")
IGNORED_FILE_PATTERNS = ("test_*.py", "*_test.py", "conftest.py")


def is_ignored(name: str, *, is_dir: bool) -> bool:
    """Entries discovery never looks at: caches, tests, dotfiles."""
    if name.startswith("."):
        return True
    if is_dir:
        return name in IGNORED_DIRECTORIES
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in IGNORED_FILE_PATTERNS)


def try_suggest_slot(name: str) -> str | None:
    """The slot folder a misspelt folder name probably means (`tool` -> `tools`)."""
    import difflib

    if name in SLOTS_BY_DIRECTORY:
        return None
    lowered = name.lower()
    if lowered in SLOTS_BY_DIRECTORY:
        return lowered
    close = difflib.get_close_matches(lowered, list(SLOTS_BY_DIRECTORY), n=1, cutoff=0.8)
    return close[0] if close else None


def is_private(name: str) -> bool:
    """Modules starting with `_` are helpers, never contributions."""
    return name.startswith("_")
