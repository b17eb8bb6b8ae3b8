"""Assembling the manifest's contributions from per-module results, in the build process.

Plain data in, plain data out: the results are the workers' JSON (engine.batch), so
nothing here imports user code, pydantic or the checking code. Results are read by path
in the tree's order, so the output is the same however the work was split.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eve_build import slots
from eve_build.diagnostics import Diagnostic, Diagnostics, error
from eve_build.load.routes import find_duplicate_routes
from eve_build.load.skill_record import check_skill
from eve_build.project.pyproject import ExtensionProject
from eve_build.source.layout import AgentTree, SourceLayout

Record = dict[str, Any]


@dataclass
class CheckedSource:
    """What the definitions add up to, as plain data."""

    contributions: Record = field(default_factory=dict)
    capabilities: set[str] = field(default_factory=set)
    config_schema: Record | None = None
    stub_parameters: str = ""
    stub_classes: str = ""  # TypedDicts the parameters name (nested config models)
    root_tools: list[tuple[str, str, str]] = field(default_factory=list)  # name, path, kind
    imported: list[str] = field(default_factory=list)  # modules imported (not from cache)
    fragments: dict[int, str] = field(default_factory=dict)  # id(record) -> its JSON text


def assemble(project: ExtensionProject, layout: SourceLayout, modules: list[tuple[str, str, str]],
             results: dict[str, Any], collected: Diagnostics) -> CheckedSource:
    """The manifest's contributions from per-module results, in the tree's order."""
    display = f"{project.source}/"
    for path, _, _ in modules:
        collected.extend(Diagnostic.from_json(d) for d in results.get(path, {}).get("import", []))
    for path, _, _ in modules:
        collected.extend(Diagnostic.from_json(d) for d in results.get(path, {}).get("check", []))
    checked = CheckedSource()
    extension = results.get(slots.EXTENSION_MODULE, {}).get("extra") or {}
    checked.config_schema = extension.get("configSchema")
    checked.stub_parameters = extension.get("stubParameters", "")
    checked.stub_classes = extension.get("stubClasses", "")
    ctx = _Assembly(project.source_dir, display)
    for result in results.values():
        ctx.capabilities.update(result.get("capabilities", []))
    checked.contributions = _tree(ctx, layout.tree, results, checked)
    collected.extend(find_duplicate_routes(checked.contributions, display))
    states = _states(ctx, results)
    if states:
        checked.contributions["states"] = states
        ctx.capabilities.add("state")
    collected.extend(ctx.found)
    checked.capabilities = ctx.capabilities
    return checked


@dataclass
class _Assembly:
    """What assembling needs of `load.contributions._Context` (no modules, no pydantic)."""

    source: Path
    display: str
    found: list[Diagnostic] = field(default_factory=list)
    capabilities: set[str] = field(default_factory=set)


def _tree(ctx: _Assembly, tree: AgentTree, results: dict[str, Any],
          checked: CheckedSource) -> Record:
    record: Record = {slot.directory: [] for slot in slots.SLOTS}
    for entry in tree.modules:
        result = results.get(entry.path) or {}
        if result.get("record") is None:
            continue
        record[entry.slot.directory].append(result["record"])
        if "recordText" in result:  # the manifest writes this text instead of encoding it
            checked.fragments[id(result["record"])] = result["recordText"]
        if tree.path == "" and entry.slot == slots.TOOLS:
            checked.root_tools.append((entry.name, entry.path, result["extra"]["kind"]))
    for skill in tree.skills:
        record["skills"].append(check_skill(ctx, skill.name, skill.path, skill.packaged,
                                             skill.assets))
    for sub in tree.subagents:
        ctx.capabilities.add("subagent")
        item: Record = {"name": sub.name, "path": sub.path, "file": sub.agent_module}
        if sub.agent_module is not None:
            item.update((results.get(sub.agent_module) or {}).get("record") or {})
        item["contributions"] = _tree(ctx, sub, results, checked)
        record["subagents"].append(item)
    if tree.instructions is not None:
        markdown = tree.instructions.endswith(".md")
        ctx.capabilities.add("instructions" if markdown else "dynamicInstructions")
        record["instructions"] = {"file": tree.instructions,
                                  "kind": "markdown" if markdown else "dynamic"}
    if tree.mounts:
        record["mounts"] = tree.mounts
    return {key: value for key, value in record.items() if value}


def _states(ctx: _Assembly, results: dict[str, Any]) -> list[Record]:
    """Each state once, by name; a second definition of a name is an error."""
    entries = {(name, file, ordinal, line[0] if line else None)
               for result in results.values()
               for name, file, ordinal, *line in result.get("states", [])}
    order = sorted(entries, key=lambda e: (e[1].removesuffix(".py").replace("/", "."), e[2]))
    first: dict[str, tuple[str, str, int, int | None]] = {}
    found: list[Diagnostic] = []
    for entry in order:
        winner = first.setdefault(entry[0], entry)
        if winner != entry:
            found.append(error(
                "state/name-duplicate", f"{ctx.display}{entry[1]}",
                f"the state `{entry[0]}` is also defined in "
                f"`{ctx.display}{winner[1]}{f':{winner[3]}' if winner[3] else ''}`",
                "give each define_state() of an extension its own name",
                line=entry[3],
            ))
    ctx.found.extend(found)
    return [{"name": name, "file": entry[1]} for name, entry in sorted(first.items())]
