"""Precedence: agent-root qualified file > directory-mount override > package.

    agent/tools/crm__search.py                 root-override of `crm`'s `search`
    agent/extensions/crm/tools/search.py       directory-override of the same
    tool = disable_tool()                      (in either) removes the tool

An override keeps the original's identity, so results map back to the package's
definition. An override of a name the extension does not contribute is a warning and
is ignored. Hooks and instructions beside a directory mount are additive (not here).
"""

from __future__ import annotations

import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from eve_build import slots
from eve_build.consumer.resolve import dotted
from eve_build.diagnostics import Diagnostic, error, warning
from eve_build.formats.compiled import AGENT_PACKAGE, CompiledContribution
from eve_build.load import checks
from eve_build.load.checks import Where
from eve_build.load.importer import find_assignment_line
from eve_build.sdk.definitions import DEFINITION_TYPES, DisabledTool, derive_kind
from eve_build.source.skills import FrontmatterError, read_skill

OverrideSource = Literal["directory-override", "root-override"]
_CHECKS: dict[str, Any] = {
    "tool": checks.check_tool, "channel": checks.check_channel,
    "connection": checks.check_connection, "schedule": checks.check_schedule,
}


@dataclass(frozen=True)
class Override:
    """One override file: what it replaces, and with what (None: disable_tool())."""

    slot: slots.Slot
    name: str  # the contribution's local name in the mount
    source: OverrideSource
    file: str  # shown
    line: int | None
    replacement: CompiledContribution | None


def load_override(
    slot: slots.Slot, name: str, agent_path: str, module: types.ModuleType | None, *,
    shown: str, source: OverrideSource,
) -> tuple[Override | None, list[Diagnostic]]:
    """Check the definition in one override module (`agent_path` relative to the agent)."""
    if module is None:
        return None, []
    value = getattr(module, slot.attribute, None)
    line = find_assignment_line(module, slot.attribute)
    kinds = (*DEFINITION_TYPES[slot.kind], *((DisabledTool,) if slot == slots.TOOLS else ()))
    if value is None:
        return None, [error(
            "load/definition-missing", shown, f"`{shown}` does not define `{slot.attribute}`",
            f"bind the override to `{slot.attribute}`"
            + (", or `tool = disable_tool()` to remove the tool" if slot == slots.TOOLS else ""),
        )]
    if not isinstance(value, kinds):
        return None, [error(
            "load/definition-wrong-kind", shown,
            f"`{slot.attribute}` is {derive_kind(value)}, but an override in `{slot.directory}/`"
            f" takes define_{slot.kind}()" + (" or disable_tool()" if slot == slots.TOOLS else ""),
            "bind the kind of definition this slot holds", line=line,
        )]
    if isinstance(value, DisabledTool):
        return Override(slot, name, source, shown, line, None), []
    details, found = _CHECKS[slot.kind](value, Where(shown, line))
    return Override(slot, name, source, shown, line, CompiledContribution(
        kind=slot.kind, name=name, local_name=name, mount=None, source=source,
        module=f"{AGENT_PACKAGE}.{dotted(agent_path)}", attribute=slot.attribute, file=shown,
        identity=str(getattr(value, "identity", "") or ""), details=details,
    )), found


def load_skill_override(name: str, path: Path, shown: str, packaged: bool,
                        source: OverrideSource = "directory-override",
                        ) -> tuple[Override | None, list[Diagnostic]]:
    """A skill beside a directory mount (or `agent/skills/<ns>__<name>`) replaces the
    package's skill of that name."""
    try:
        meta = read_skill(path)
    except (FrontmatterError, UnicodeDecodeError) as exc:
        return None, [error("skill/frontmatter-invalid", shown, str(exc),
                            "start the file with `---`, `description: ...`, `---`")]
    description = meta.get("description")
    if packaged and (not isinstance(description, str) or not description.strip()):
        return None, [error("skill/description-missing", shown,
                            f"the packaged skill `{name}` has no `description` in its frontmatter",
                            f"add `description: <when to use this skill>` to `{shown}`")]
    return Override(slots.SKILLS, name, source, shown, None, CompiledContribution(
        kind="skill", name=name, local_name=name, mount=None, source=source,
        module=None, attribute=None, file=shown, identity="",
        details={"description": description if isinstance(description, str) else ""},
    )), []


def apply_overrides(
    items: dict[str, list[CompiledContribution]], overrides: list[Override], *,
    namespace: str, package: str,
) -> list[Diagnostic]:
    """Replace or remove the mount's contributions in place; the root override wins."""
    found: list[Diagnostic] = []
    winners: dict[tuple[str, str], Override] = {}
    for override in sorted(overrides, key=lambda o: o.source == "root-override"):
        winners[(override.slot.directory, override.name)] = override
    for (directory, name), override in winners.items():
        current = items[directory]
        index = next((i for i, c in enumerate(current) if c.local_name == name), None)
        if index is None:
            known = ", ".join(f"`{c.local_name}`" for c in current) or "none"
            found.extend(warning(
                "mount/override-unknown", o.file,
                f"`{o.file}` overrides the {o.slot.kind} `{name}` of the mount `{namespace}`, "
                f"but `{package}` contributes no {o.slot.kind} of that name; it is ignored",
                f"the {o.slot.kind}s of `{namespace}` are: {known}", line=o.line,
            ) for o in overrides if (o.slot.directory, o.name) == (directory, name))
            continue
        original = current[index]
        if override.replacement is None:
            del current[index]
            continue
        current[index] = override.replacement.model_copy(update={
            "name": original.name, "local_name": original.local_name, "mount": original.mount,
            "mount_path": original.mount_path, "identity": original.identity,
        })
    return found
