"""Checks over the names one tree derives: collisions, identifier clashes, lengths."""

from __future__ import annotations

import keyword

from eve_build import slots
from eve_build.diagnostics import Diagnostic, error, warning
from eve_build.naming import TOOL_NAME_LIMIT, TOOL_NAME_WARN, derive_identifier
from eve_build.source.layout import AgentTree, ModuleEntry


def find_name_problems(tree: AgentTree, display: str) -> list[Diagnostic]:
    """Names of one tree that collide, clash as identifiers, or are too long for providers."""
    found: list[Diagnostic] = []
    by_name: dict[str, ModuleEntry] = {}
    for entry in tree.modules:
        key = f"{entry.slot.directory}:{entry.name}"
        if key in by_name:
            found.append(error(
                "discover/name-collision", f"{display}{entry.path}",
                f"`{display}{by_name[key].path}` and `{display}{entry.path}` both give "
                f"the {entry.slot.kind} name `{entry.name}`", "rename one of the two files",
            ))
        by_name.setdefault(key, entry)
    by_identifier: dict[str, ModuleEntry] = {}
    for entry in tree.modules_of(slots.TOOLS):
        shown = f"{display}{entry.path}"
        if len(entry.name) > TOOL_NAME_LIMIT:
            found.append(error(
                "discover/name-too-long", shown,
                f"the tool name `{entry.name}` has {len(entry.name)} characters; providers "
                f"accept at most {TOOL_NAME_LIMIT}", "choose a shorter file name",
            ))
        elif len(entry.name) > TOOL_NAME_WARN:
            found.append(warning(
                "discover/name-long", shown,
                f"the tool name `{entry.name}` has {len(entry.name)} characters; with a "
                f"namespace and `__` it may pass the provider limit of {TOOL_NAME_LIMIT}",
                f"keep tool names at {TOOL_NAME_WARN} characters or fewer",
            ))
        identifier = derive_identifier(entry.name)
        if tree.path == "" and (not identifier.isidentifier() or keyword.iskeyword(identifier)):
            found.append(error(
                "discover/identifier-invalid", shown,
                f"the tool name `{entry.name}` cannot be a Python name (`{identifier}`) in the "
                "generated `tools` module", "start the file name with a letter and avoid "
                "Python keywords, e.g. `two-fa.py` or `class_.py`",
            ))
        other = by_identifier.get(identifier)
        if other is not None and other.name != entry.name:
            found.append(error(
                "discover/identifier-clash", shown,
                f"the tools `{other.name}` and `{entry.name}` both become `{identifier}` in "
                "the generated `tools` module", "rename one of the two files",
            ))
        by_identifier[identifier] = entry
    return found
