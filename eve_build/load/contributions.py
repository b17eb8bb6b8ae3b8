"""Check every discovered definition and assemble the manifest's contributions."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eve_build import slots
from eve_build.diagnostics import Diagnostic, error
from eve_build.load import checks
from eve_build.load.asks import find_ask_problems
from eve_build.load.checks import Record, Where
from eve_build.load.importer import LoadedModules, find_assignment_line
from eve_build.load.signatures import find_signature_problems
from eve_build.load.skill_record import check_skill as _check_skill
from eve_build.sdk.definitions import (
    DEFINITION_TYPES,
    Agent,
    Dynamic,
    Extension,
    Instructions,
    State,
    Tool,
    derive_kind,
)
from eve_build.source.layout import AgentTree, ModuleEntry

_MISSING = object()


@dataclass
class Checked:
    """What the definitions add up to."""

    contributions: Record = field(default_factory=dict)
    capabilities: set[str] = field(default_factory=set)
    config_schema: Record | None = None
    config_model: Any = None
    root_tools: list[tuple[str, str, object]] = field(default_factory=list)  # name, path, def


@dataclass
class _Context:
    source: Path
    display: str
    identity_prefix: str
    loaded: LoadedModules
    found: list[Diagnostic] = field(default_factory=list)
    capabilities: set[str] = field(default_factory=set)

    def where(self, path: str, attribute: str | None = None) -> Where:
        module = self.loaded.modules.get(path)
        if module is None or not attribute:
            return Where(f"{self.display}{path}")
        return Where(f"{self.display}{path}",
                     locate=lambda: find_assignment_line(module, attribute))

    def definition(self, path: str, attribute: str, kinds: tuple[type, ...]) -> Any:
        """The module's definition, or _MISSING after reporting why not."""
        if path in self.loaded.failed or path not in self.loaded.modules:
            return _MISSING
        value = getattr(self.loaded.modules[path], attribute, _MISSING)
        if value is _MISSING and (other := _find_misnamed(self.loaded.modules[path], kinds)):
            self.found.append(self.where(path, other).error(
                "load/definition-misnamed",
                f"`{self.display}{path}` defines {_constructor(kinds[0])}() under the name "
                f"`{other}`, but this slot reads it from `{attribute}`",
                f"rename `{other}` to `{attribute}`: the name of the file, not of the "
                "variable, names the contribution",
            ))
            return _MISSING
        if value is _MISSING and (placed := _find_other_slot(self.loaded.modules[path])):
            name, slot = placed
            here = _slot_of(attribute)
            bind = f" and bind it to `{slot.attribute}`" if name != slot.attribute else ""
            self.found.append(self.where(path, name).error(
                "load/definition-wrong-slot",
                f"`{self.display}{path}` defines a {slot.kind} (`{name} = "
                f"{_constructor(DEFINITION_TYPES[slot.attribute][0])}(...)`), but "
                f"`{here.directory}/` holds {here.kind}s",
                f"move the file to `{self.display}{_move_to_slot(path, here, slot)}`{bind}: "
                f"each slot folder holds one kind",
            ))
            return _MISSING
        if value is _MISSING:
            self.found.append(error(
                "load/definition-missing", f"{self.display}{path}",
                f"`{self.display}{path}` does not define `{attribute}`",
                f"bind the definition to the name `{attribute}`, e.g. `{attribute} = "
                f"{_constructor(kinds[0])}(...)`; helpers belong in modules starting with `_`",
            ))
            return _MISSING
        if not isinstance(value, kinds):
            move = "move the module to the slot that takes this kind"
            if owner := _find_other_slot(self.loaded.modules[path], only=attribute):
                target = _move_to_slot(path, _slot_of(attribute), owner[1])
                move = (f"move the file to `{self.display}{target}` and bind it to "
                        f"`{owner[1].attribute}`")
            self.found.append(self.where(path, attribute).error(
                "load/definition-wrong-kind",
                f"`{attribute}` is {derive_kind(value)}, but this slot takes "
                f"{' or '.join(_constructor(k) + '()' for k in kinds)}",
                f"use {_constructor(kinds[0])}(...) here, or {move}",
            ))
            return _MISSING
        return value


def _find_other_slot(module: object, only: str | None = None
                     ) -> tuple[str, slots.Slot] | None:
    """A public module-level name (or just `only`) bound to what another slot folder holds
    (`channel = define_channel(...)` in tools/), and that slot; None when there is none."""
    for name, value in sorted(vars(module).items()):
        if only is not None and name != only:
            continue
        for slot in slots.SLOTS:
            kinds = DEFINITION_TYPES.get(slot.attribute, ())
            if (not name.startswith("_") and slot.layout == "modules"
                    and type(value) in kinds and not isinstance(value, Dynamic)):
                return name, slot
    return None


def _slot_of(attribute: str) -> slots.Slot:
    return next(slot for slot in slots.SLOTS if slot.attribute == attribute)


def _move_to_slot(path: str, here: slots.Slot, slot: slots.Slot) -> str:
    """`tools/hook.py` -> `channels/hook.py` (the innermost slot folder is replaced)."""
    parts = path.split("/")
    index = max((i for i, part in enumerate(parts[:-1]) if part == here.directory),
                default=None)
    if index is None:
        return f"{slot.directory}/{parts[-1]}"
    return "/".join([*parts[:index], slot.directory, *parts[index + 1:]])


def _find_misnamed(module: object, kinds: tuple[type, ...]) -> str | None:
    """A public module-level name bound to a definition of the slot's kind, if any."""
    for name, value in sorted(vars(module).items()):
        if not name.startswith("_") and isinstance(value, kinds):
            return name
    return None


def _constructor(kind: type) -> str:
    return {"Dynamic": "define_dynamic", "Agent": "define_agent"}.get(
        kind.__name__, f"define_{kind.__name__.lower()}"
    )


def check_contributions(
    tree: AgentTree, loaded: LoadedModules, *, source: Path, display: str, identity_prefix: str
) -> tuple[Checked, list[Diagnostic]]:
    ctx = _Context(source, display, identity_prefix, loaded)
    checked = Checked()
    extension = ctx.definition(slots.EXTENSION_MODULE, slots.EXTENSION_ATTRIBUTE, (Extension,))
    if extension is not _MISSING:
        schema, problems = checks.check_extension(
            extension, ctx.where(slots.EXTENSION_MODULE, slots.EXTENSION_ATTRIBUTE)
        )
        ctx.found.extend(problems)
        checked.config_schema = schema
        checked.config_model = extension.config_model if schema is not None else None
        if schema is not None:
            ctx.capabilities.add("config")
    checked.contributions = _check_tree(ctx, tree, checked)
    states = _find_states(ctx)
    if states:
        checked.contributions["states"] = states
        ctx.capabilities.add("state")
    checked.capabilities = ctx.capabilities
    return checked, ctx.found


def _check_tree(ctx: _Context, tree: AgentTree, checked: Checked) -> Record:
    record: Record = {slot.directory: [] for slot in slots.SLOTS}
    for entry in tree.modules:
        definition = ctx.definition(entry.path, entry.slot.attribute,
                                    DEFINITION_TYPES[entry.slot.kind])
        if definition is _MISSING:
            continue
        if hasattr(definition, "identity"):
            object.__setattr__(definition, "identity", f"{ctx.identity_prefix}{entry.path}")
        item = _check_module(ctx, entry, definition)
        record[entry.slot.directory].append(item)
        if tree.path == "" and entry.slot == slots.TOOLS:
            checked.root_tools.append((entry.name, entry.path, definition))
    for skill in tree.skills:
        record["skills"].append(_check_skill(ctx, skill.name, skill.path, skill.packaged,
                                             skill.assets))
    for sub in tree.subagents:
        record["subagents"].append(_check_subagent(ctx, sub, checked))
    record["instructions"] = _check_instructions(ctx, tree.instructions)
    if tree.mounts:
        record["mounts"] = tree.mounts
    return {key: value for key, value in record.items() if value}


def _check_module(ctx: _Context, entry: ModuleEntry, definition: Any) -> Record:
    where = ctx.where(entry.path, entry.slot.attribute)
    table: dict[str, Callable[[Any, Where], tuple[Record, list[Diagnostic]]]] = {
        "tool": checks.check_tool, "channel": checks.check_channel,
        "connection": checks.check_connection, "schedule": checks.check_schedule,
        "hook": checks.check_hook,
    }
    check = table[entry.slot.kind]
    details, problems = check(definition, where)
    ctx.found.extend(problems)
    ctx.found.extend(find_signature_problems(definition, where))
    if (module := ctx.loaded.modules.get(entry.path)) is not None:
        ctx.found.extend(find_ask_problems(module, f"{ctx.display}{entry.path}"))
    dynamic = isinstance(definition, Dynamic)
    ctx.capabilities.add(entry.slot.dynamic_capability if dynamic and entry.slot.dynamic_capability
                         else entry.slot.capability)
    item: Record = {"name": entry.name, "file": entry.path}
    if isinstance(definition, Tool):
        item["description"] = details.pop("description")
    item.update(details)
    item["identity"] = f"{ctx.identity_prefix}{entry.path}"
    return item


def _check_subagent(ctx: _Context, tree: AgentTree, checked: Checked) -> Record:
    ctx.capabilities.add("subagent")
    record: Record = {"name": tree.name, "path": tree.path, "file": tree.agent_module}
    if tree.agent_module is not None:
        agent = ctx.definition(tree.agent_module, slots.AGENT_ATTRIBUTE, (Agent,))
        if agent is not _MISSING:
            details, problems = checks.check_agent(
                agent, ctx.where(tree.agent_module, slots.AGENT_ATTRIBUTE)
            )
            ctx.found.extend(problems)
            record.update(details)
    record["contributions"] = _check_tree(ctx, tree, checked)
    return record


def _check_instructions(ctx: _Context, path: str | None) -> Record | None:
    if path is None:
        return None
    if path.endswith(".md"):
        ctx.capabilities.add("instructions")
        return {"file": path, "kind": "markdown"}
    ctx.capabilities.add("dynamicInstructions")
    value = ctx.definition(path, slots.INSTRUCTIONS_ATTRIBUTE, (Instructions,))
    if value is not _MISSING:
        ctx.found.extend(checks.check_instructions(
            value, ctx.where(path, slots.INSTRUCTIONS_ATTRIBUTE)))
    return {"file": path, "kind": "dynamic"}


def _find_states(ctx: _Context) -> list[Record]:
    """Module-level define_state() values in any module of the package, by name."""
    prefix = f"{ctx.loaded.package}."
    seen: dict[str, tuple[str, State]] = {}
    for name in sorted(k for k in sys.modules if k.startswith(prefix)):
        module = sys.modules[name]
        file = getattr(module, "__file__", None)
        if not file:
            continue
        # From the module name, not the file: a symlinked module may resolve elsewhere.
        stem = name.removeprefix(prefix).replace(".", "/")
        path = f"{stem}/__init__.py" if Path(file).name == "__init__.py" else f"{stem}.py"
        for value in vars(module).values():
            if not isinstance(value, State) or value.module not in ("", name):
                continue
            first = seen.setdefault(value.name, (path, value))
            if first[1] is not value:
                at = f":{first[1].line}" if first[1].line else ""
                ctx.found.append(error(
                    "state/name-duplicate", f"{ctx.display}{path}",
                    f"the state `{value.name}` is also defined in `{ctx.display}{first[0]}{at}`",
                    "give each define_state() of an extension its own name", line=value.line,
                ))
    return [{"name": name, "file": path} for name, (path, _) in sorted(seen.items())]
