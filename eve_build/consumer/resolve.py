"""Turn a contributions record (a manifest's, or the agent's own) into compiled trees.

A record has the manifest's shape: `tools`, `channels`, ... lists of items with
`name`, `file`, `identity` and details, `instructions`, `subagents` (each with its own
`contributions`). An `Origin` says where the record's files live and which mount it
belongs to. At a mount's top level, tools, channels, connections, schedules, skills
and subagents get the `<ns>__` prefix; hooks keep their local names; inside an
extension's subagents nothing is prefixed (the subagent belongs to the extension).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eve_build import slots
from eve_build.diagnostics import Diagnostic, error
from eve_build.formats.compiled import (
    CompiledContribution,
    CompiledInstructions,
    CompiledMount,
    CompiledState,
    CompiledTree,
    Source,
)
from eve_build.naming import Namespace, derive_qualified
from eve_build.userfile import read_user_text

ITEM_SLOTS = tuple(s for s in slots.SLOTS if s.layout != "subagents")
_NOT_DETAILS = frozenset({"name", "file", "identity"})


@dataclass(frozen=True)
class Origin:
    """Where a record's definitions live, and the mount they belong to."""

    namespace: Namespace | None
    mount_path: str | None
    module_base: str  # "eve_agent" or "acme_crm.extension"
    file_base: str  # "agent/" or "acme_crm/extension/"
    text_root: Path  # the folder the record's files are relative to
    identity_base: str  # "agent:" or "acme-crm:"
    source: Source


@dataclass
class TreeDraft:
    """A compiled tree being assembled; `freeze` makes the immutable CompiledTree."""

    path: str
    name: str | None = None
    description: str | None = None
    model: str | None = None
    agent_module: str | None = None
    mount: str | None = None
    instructions: list[CompiledInstructions] = field(default_factory=list)
    mounts: list[CompiledMount] = field(default_factory=list)
    items: dict[str, list[CompiledContribution]] = field(
        default_factory=lambda: {s.directory: [] for s in ITEM_SLOTS})
    subagents: list[TreeDraft] = field(default_factory=list)
    states: list[CompiledState] = field(default_factory=list)

    def walk(self) -> list[TreeDraft]:
        drafts = [self]
        for sub in self.subagents:
            drafts.extend(sub.walk())
        return drafts

    def freeze(self) -> CompiledTree:
        return CompiledTree(
            path=self.path, name=self.name, description=self.description, model=self.model,
            agent_module=self.agent_module, mount=self.mount, instructions=self.instructions,
            mounts=self.mounts, tools=self.items["tools"], channels=self.items["channels"],
            connections=self.items["connections"], schedules=self.items["schedules"],
            skills=self.items["skills"], hooks=self.items["hooks"],
            subagents=[s.freeze() for s in self.subagents], states=self.states,
        )


def dotted(file: str) -> str:
    return file.removesuffix(".py").replace("/", ".")


def derive_contribution(slot: slots.Slot, item: dict[str, Any], origin: Origin, *,
                        prefixed: bool) -> CompiledContribution:
    local = str(item["name"])
    name = derive_qualified(origin.namespace, local) if prefixed and slot.prefixed else local
    file = str(item["file"])
    is_module = slot.layout == "modules"
    return CompiledContribution(
        kind=slot.kind, name=name, local_name=local, mount=origin.namespace,
        mount_path=origin.mount_path, source=origin.source,
        module=f"{origin.module_base}.{dotted(file)}" if is_module else None,
        attribute=slot.attribute if is_module else None, file=f"{origin.file_base}{file}",
        identity=str(item.get("identity") or f"{origin.identity_base}{file}"),
        details={k: v for k, v in item.items() if k not in _NOT_DETAILS},
    )


def derive_items(record: dict[str, Any], origin: Origin, *,
                 prefixed: bool) -> dict[str, list[CompiledContribution]]:
    return {
        slot.directory: [derive_contribution(slot, item, origin, prefixed=prefixed)
                         for item in record.get(slot.directory, []) if isinstance(item, dict)]
        for slot in ITEM_SLOTS
    }


def read_instructions(path: Path, shown: str) -> tuple[str | None, list[Diagnostic]]:
    """The text of a markdown instructions file, or why it cannot be read."""
    try:
        return read_user_text(path, what="instructions"), []
    except UnicodeDecodeError as exc:
        reason = f"it is not UTF-8 text (byte {exc.start + 1} cannot be decoded)"
        hint = f"save `{shown}` as UTF-8"
    except OSError as exc:
        reason = f"it cannot be read: {exc.strerror or type(exc).__name__}"
        hint = f"check that `{shown}` exists and is readable"
    return None, [error("agent/instructions-unreadable", shown,
                        f"the instructions `{shown}` cannot be used: {reason}", hint)]


def derive_instructions(record: dict[str, Any], origin: Origin, found: list[Diagnostic]
                        ) -> list[CompiledInstructions]:
    """The record's instructions; a markdown file that cannot be read is added to `found`."""
    value = record.get("instructions")
    if not isinstance(value, dict) or not isinstance(value.get("file"), str):
        return []
    file = value["file"]
    common: dict[str, Any] = {"mount": origin.namespace, "mount_path": origin.mount_path,
                              "file": f"{origin.file_base}{file}"}
    if value.get("kind") == "dynamic":
        return [CompiledInstructions(kind="dynamic", module=f"{origin.module_base}."
                                     f"{dotted(file)}", **common)]
    text, problems = read_instructions(origin.text_root / file, common["file"])
    found.extend(problems)
    return [] if text is None else [CompiledInstructions(kind="markdown", text=text, **common)]


def derive_subagents(record: dict[str, Any], origin: Origin, parent_path: str,
                     found: list[Diagnostic], *, prefixed: bool) -> list[TreeDraft]:
    """Subagent drafts; at a mount's top level their names get the namespace prefix."""
    drafts: list[TreeDraft] = []
    for sub in record.get("subagents", []):
        if not isinstance(sub, dict):
            continue
        local = str(sub.get("name"))
        name = derive_qualified(origin.namespace, local) if prefixed else local
        path = f"{parent_path}/{name}" if parent_path else name
        inner = sub.get("contributions") if isinstance(sub.get("contributions"), dict) else {}
        assert isinstance(inner, dict)
        file = sub.get("file")
        draft = TreeDraft(
            path=path, name=name, description=sub.get("description"), model=sub.get("model"),
            agent_module=f"{origin.module_base}.{dotted(file)}" if isinstance(file, str)
            else None, mount=origin.namespace,
            instructions=derive_instructions(inner, origin, found),
            items=derive_items(inner, origin, prefixed=False),
        )
        draft.subagents = derive_subagents(inner, origin, path, found, prefixed=False)
        drafts.append(draft)
    return drafts


def find_draft(root: TreeDraft, path: str) -> TreeDraft | None:
    return next((d for d in root.walk() if d.path == path), None)
