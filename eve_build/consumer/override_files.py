"""Overrides named from the agent root, and override folders of mounted subagents.

    agent/tools/crm__search.py             replaces `crm`'s tool `search`
    agent/skills/crm__triage.md            replaces `crm`'s skill `triage`
    agent/subagents/crm__reviewer/tools/   override `crm`'s subagent `reviewer`
    agent/extensions/crm/subagents/reviewer/tools/   the same, beside a directory mount

Each file becomes an `Override` collected in `AgentFiles`, by mount path (and, for a
subagent, by its local name); `assemble` applies them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from eve_build import slots
from eve_build.consumer.overrides import OverrideSource, load_override, load_skill_override
from eve_build.diagnostics import Diagnostic, error
from eve_build.load.importer import LoadedModules
from eve_build.naming import split_qualified
from eve_build.project.app import App
from eve_build.sdk.definitions import Agent
from eve_build.source.layout import AgentTree, SkillEntry

if TYPE_CHECKING:
    from eve_build.consumer.agent_files import AgentFiles


def load_root_overrides(app: App, tree: AgentTree, loaded: LoadedModules,
                        mounted: dict[tuple[str, str], str], files: AgentFiles
                        ) -> list[Diagnostic]:
    """Every root-qualified override of the agent and its own subagents; `mounted` maps
    (tree path, namespace) to the mount path."""
    found: list[Diagnostic] = []
    for node in tree.walk():
        for entry in node.overrides:
            found.extend(_root_override(app, node, entry.slot, entry.name, entry.path, loaded,
                                        mounted, files))
        for skill in node.skill_overrides:
            found.extend(_root_skill_override(app, node, skill, mounted, files))
    for override in tree.subagent_overrides:
        namespace, local = split_qualified(override.name or "") or ("", "")
        mount_path = mounted.get(("", namespace))
        shown = f"{app.display}{override.prefix.rstrip('/')}"
        if mount_path is None:
            found.append(error(
                "agent/override-namespace-unknown", shown,
                f"`{shown}/` is named like an override of the subagent `{override.name}`, but "
                f"nothing is mounted under the namespace `{namespace}`",
                f"mount it in `{app.display}extensions/{namespace}.py`, or rename the folder: "
                "`__` is reserved as the mount separator"))
            continue
        found.extend(load_subagent_override(app, override, "", mount_path, local, loaded,
                                            files, "root-override"))
    return found


def load_subagent_override(app: App, override: AgentTree, base: str, mount_path: str,
                           local: str, loaded: LoadedModules, files: AgentFiles,
                           source: OverrideSource) -> list[Diagnostic]:
    """Override files for the mounted subagent `local`: module slots and skills replace (or
    disable) its contributions of the same name; anything else is unsupported here."""
    found = _find_wholesale_files(app, override, base, local)
    found.extend(_load_model_override(app, override, base, mount_path, local, loaded, files))
    collected = files.subagent_overrides.setdefault(mount_path, {}).setdefault(local, [])
    for entry in override.modules:
        path, shown = f"{base}{entry.path}", f"{app.display}{base}{entry.path}"
        if entry.slot == slots.HOOKS:
            found.append(error(
                "mount/override-unsupported", shown, f"`{shown}` adds a hook to a mounted "
                "subagent, which an override folder cannot do",
                "add the hook beside the directory mount or in the agent instead"))
            continue
        result, problems = load_override(entry.slot, entry.name, path, loaded.modules.get(path),
                                         shown=shown, source=source)
        found.extend(problems)
        collected.extend([result] if result else [])
    for skill in override.skills:
        shown = f"{app.display}{base}{skill.path}"
        result, problems = load_skill_override(skill.name, app.agent_dir / f"{base}{skill.path}",
                                               shown, skill.packaged, source)
        found.extend(problems)
        collected.extend([result] if result else [])
    return found


def _find_wholesale_files(app: App, override: AgentTree, base: str,
                          local: str) -> list[Diagnostic]:
    """An error for each file of an override folder that would change the subagent itself
    (its description and model, instructions, mounts or nested subagents): an override
    folder replaces contributions by name; the subagent stays the package's."""
    pieces = [(override.instructions, "its instructions"),
              *((f"{sub.prefix.rstrip('/')}/", "its nested subagents")
                for sub in override.subagents),
              *((mount, "its mounts") for mount in override.mounts)]
    return [error(
        "mount/override-unsupported", f"{app.display}{base}{path}",
        f"`{app.display}{base}{path}` would change {what} of the mounted subagent `{local}`, "
        "which an override folder cannot do: it only replaces the subagent's tools, "
        "channels, connections, schedules and skills by name",
        "remove the file; to run the subagent with another description, model or "
        "instructions, define your own subagent under another name in "
        f"`{app.display}subagents/` (it may mount the same package)",
    ) for path, what in pieces if path]


def _load_model_override(app: App, override: AgentTree, base: str, mount_path: str,
                         local: str, loaded: LoadedModules, files: AgentFiles
                         ) -> list[Diagnostic]:
    """The override folder's `agent.py`: `agent = define_agent(model=...)` and nothing
    else sets the mounted subagent's model; a description (or anything else) is an error,
    as the subagent stays the package's."""
    path = f"{base}{override.prefix}{slots.AGENT_MODULE}"
    if not (app.agent_dir / path).is_file():
        return []
    shown = f"{app.display}{path}"
    module = loaded.modules.get(path)
    if module is None:  # it did not import: the import's own diagnostic says why
        return []
    value = getattr(module, slots.AGENT_ATTRIBUTE, None)
    if isinstance(value, Agent) and value.model and not value.description:
        files.subagent_models.setdefault(mount_path, {})[local] = (value.model, path)
        return []
    return [error(
        "mount/override-unsupported", shown,
        f"`{shown}` would change its description of the mounted subagent `{local}`, which "
        "an override folder cannot do: its `agent.py` may only set the model",
        "write `agent = define_agent(model=\"provider:model\")` and nothing else, or define "
        f"your own subagent under another name in `{app.display}subagents/`")]


def _root_override(app: App, node: AgentTree, slot: slots.Slot, qualified: str, path: str,
                   loaded: LoadedModules, mounted: dict[tuple[str, str], str],
                   files: AgentFiles) -> list[Diagnostic]:
    shown = f"{app.display}{path}"
    mount_path, name, unknown = _locate_override_mount(app, node, qualified, shown, mounted)
    if mount_path is None:
        return unknown
    override, found = load_override(slot, name, path, loaded.modules.get(path), shown=shown,
                                    source="root-override")
    if override is not None:
        files.overrides.setdefault(mount_path, []).append(override)
    return found


def _root_skill_override(app: App, node: AgentTree, skill: SkillEntry,
                         mounted: dict[tuple[str, str], str], files: AgentFiles
                         ) -> list[Diagnostic]:
    """`agent/skills/crm__triage.md` (or `crm__triage/SKILL.md`) replaces `crm`'s `triage`."""
    shown = f"{app.display}{skill.path}"
    mount_path, name, unknown = _locate_override_mount(app, node, skill.name, shown, mounted)
    if mount_path is None:
        return unknown
    override, found = load_skill_override(name, app.agent_dir / skill.path, shown,
                                          skill.packaged, "root-override")
    if override is not None:
        files.overrides.setdefault(mount_path, []).append(override)
    return found


def _locate_override_mount(app: App, node: AgentTree, qualified: str, shown: str,
                           mounted: dict[tuple[str, str], str]
                           ) -> tuple[str | None, str, list[Diagnostic]]:
    """The mount path a root override `ns__name` replaces a contribution of, and `name`;
    without a mount of that namespace, the diagnostic that says so."""
    namespace, name = split_qualified(qualified) or ("", "")
    mount_path = mounted.get((node.path, namespace))
    if mount_path is not None:
        return mount_path, name, []
    return None, name, [error(
        "agent/override-namespace-unknown", shown,
        f"`{shown}` is named like an override of `{qualified}`, but nothing is mounted "
        f"under the namespace `{namespace}`" + (f" in `{node.path}`" if node.path else ""),
        f"mount it in `{app.display}{node.prefix}extensions/{namespace}.py`, or rename the "
        "file: `__` is reserved as the mount separator",
    )]
