"""The agent's own files: its slots, its root overrides and what sits beside directory mounts.

All of them import under AGENT_PACKAGE (`agent/tools/foo.py` -> `eve_agent.tools.foo`).
The agent's own slots are checked like an extension's (same record shape); files named
`<ns>__<name>` override a mounted contribution; beside a directory mount
(`agent/extensions/crm/`), module and skill slots override, hooks and instructions add.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eve_build import slots
from eve_build.consumer.mounts import MountSite
from eve_build.consumer.override_files import load_root_overrides, load_subagent_override
from eve_build.consumer.overrides import (
    Override,
    load_override,
    load_skill_override,
)
from eve_build.consumer.resolve import dotted, read_instructions
from eve_build.diagnostics import Diagnostic, error
from eve_build.formats.compiled import AGENT_PACKAGE, CompiledContribution, CompiledInstructions
from eve_build.load import checks
from eve_build.load.checks import Where
from eve_build.load.contributions import check_contributions
from eve_build.load.importer import LoadedModules, find_assignment_line, import_modules
from eve_build.project.app import App
from eve_build.sdk.definitions import Agent, Hook, Instructions, derive_kind
from eve_build.source.discover import discover_source
from eve_build.source.layout import AgentTree


@dataclass(frozen=True)
class DirectoryMount:
    """The folder of a directory mount and what discovery found in it."""

    site: MountSite
    relative: str  # relative to the agent folder: "extensions/crm"
    tree: AgentTree


@dataclass
class AgentFiles:
    record: dict[str, Any]  # the agent's own contributions, in the manifest's shape
    agent: Agent | None = None  # the root agent.py's definition
    overrides: dict[str, list[Override]] = field(default_factory=dict)  # by mount path
    hooks: dict[str, list[CompiledContribution]] = field(default_factory=dict)  # additive
    instructions: dict[str, list[CompiledInstructions]] = field(default_factory=dict)
    subagent_overrides: dict[str, dict[str, list[Override]]] = field(default_factory=dict)
    # by mount path, then the subagent's local name (`reviewer`)
    subagent_models: dict[str, dict[str, tuple[str, str]]] = field(default_factory=dict)
    # by mount path, then local name: (model, agent-relative module of the override's
    # `agent.py`), from an override folder's `agent = define_agent(model=...)`


def discover_directory_mounts(sites: list[MountSite], app: App
                              ) -> tuple[list[DirectoryMount], list[Diagnostic]]:
    found: list[Diagnostic] = []
    mounts: list[DirectoryMount] = []
    for site in sites:
        beside = site.file.parent / site.namespace
        if (site.directory is None and site.parent is None and beside.is_dir()
                and not (beside / slots.EXTENSION_MODULE).exists()):  # that one is a duplicate
            shown = f"{site.shown.removesuffix('.py')}/"
            found.append(error(
                "mount/override-beside-flat-mount", shown,
                f"`{shown}` sits beside the flat mount `{site.shown}`, so nothing in it "
                "overrides or adds anything", f"move the mount into `{shown}extension.py` (a "
                "directory mount) to use the folder for overrides, or remove the folder"))
        if site.directory is None or site.parent is not None:
            continue
        relative = site.directory.relative_to(app.agent_dir).as_posix()
        layout, problems = discover_source(site.directory, display=f"{app.display}{relative}/",
                                           package_root=app.root, role="mount")
        found.extend(problems)
        if layout.tree.subagents or layout.tree.mounts:
            found.append(error(
                "mount/override-unsupported", f"{app.display}{relative}",
                f"the directory mount `{app.display}{relative}/` holds `subagents/` or "
                "`extensions/`, which cannot override anything of the mounted extension",
                "override tools, channels, connections, schedules and skills here; add hooks "
                "and instructions; mount other extensions in the agent",
            ))
        mounts.append(DirectoryMount(site, relative, layout.tree))
    return mounts, found


def derive_agent_modules(tree: AgentTree, directories: list[DirectoryMount],
                         agent_dir: Path | None = None) -> list[str]:
    """Every agent-relative module to import, parents first (with `agent_dir`, the
    `agent.py` of subagent override folders too)."""
    paths: list[str] = []
    for node in tree.walk():
        if node.agent_module:
            paths.append(node.agent_module)
        paths.extend(e.path for e in (*node.modules, *node.overrides))
        if node.instructions and node.instructions.endswith(".py"):
            paths.append(node.instructions)
    for override in tree.subagent_overrides:
        paths.extend(e.path for e in override.modules)
        paths.extend(_override_agent_module(override, agent_dir, ""))
    for directory in directories:
        node = directory.tree
        paths.extend(f"{directory.relative}/{e.path}" for e in node.modules)
        for override in node.subagent_overrides:
            paths.extend(f"{directory.relative}/{e.path}" for e in override.modules)
            paths.extend(_override_agent_module(override, agent_dir, f"{directory.relative}/"))
        if node.instructions and node.instructions.endswith(".py"):
            paths.append(f"{directory.relative}/{node.instructions}")
    return list(dict.fromkeys(paths))


def _override_agent_module(override: AgentTree, agent_dir: Path | None, base: str
                           ) -> list[str]:
    """The `agent.py` of a subagent override folder, when there is one (it may set the
    mounted subagent's model)."""
    path = f"{base}{override.prefix}{slots.AGENT_MODULE}"
    return [path] if agent_dir is not None and (agent_dir / path).is_file() else []


def load_agent_files(app: App, tree: AgentTree, directories: list[DirectoryMount],
                     sites: list[MountSite]) -> tuple[AgentFiles, list[Diagnostic]]:
    """Import and check the agent's files (inside a loading environment)."""
    loaded, found = import_modules(AGENT_PACKAGE, app.agent_dir,
                                   derive_agent_modules(tree, directories, app.agent_dir),
                                   display=app.display, package_root=app.root)
    checked, problems = check_contributions(tree, loaded, source=app.agent_dir,
                                            display=app.display, identity_prefix="agent:")
    found.extend(problems)
    files = AgentFiles(record=checked.contributions)
    if tree.agent_module and tree.agent_module in loaded.modules:
        value = getattr(loaded.modules[tree.agent_module], slots.AGENT_ATTRIBUTE, None)
        if isinstance(value, Agent):
            files.agent = value
        else:
            found.append(error(
                "agent/definition-wrong-kind", f"{app.display}{tree.agent_module}",
                f"`agent` in `{app.display}{tree.agent_module}` is {derive_kind(value)}, not "
                "define_agent()", "bind `agent = define_agent(model=...)`, or remove the file",
            ))
    mounted: dict[tuple[str, str], str] = {
        (s.tree_path, s.namespace): s.mount_path for s in sites if s.parent is None}
    found.extend(load_root_overrides(app, tree, loaded, mounted, files))
    for directory in directories:
        found.extend(_directory(app, directory, loaded, files))
        for override in directory.tree.subagent_overrides:
            found.extend(load_subagent_override(
                app, override, f"{directory.relative}/", directory.site.mount_path,
                str(override.name), loaded, files, "directory-override"))
    return files, found



def _directory(app: App, directory: DirectoryMount, loaded: LoadedModules,
               files: AgentFiles) -> list[Diagnostic]:
    site, base = directory.site, directory.relative
    found: list[Diagnostic] = []
    overrides = files.overrides.setdefault(site.mount_path, [])
    for entry in directory.tree.modules:
        path, shown = f"{base}/{entry.path}", f"{app.display}{base}/{entry.path}"
        module = loaded.modules.get(path)
        if entry.slot != slots.HOOKS:
            override, problems = load_override(entry.slot, entry.name, path, module,
                                               shown=shown, source="directory-override")
            found.extend(problems)
            overrides.extend([override] if override else [])
            continue
        value = getattr(module, slots.HOOKS.attribute, None) if module else None
        if module is None:
            continue
        line = find_assignment_line(module, "hook")
        if not isinstance(value, Hook):
            found.append(error("load/definition-wrong-kind", shown, f"`hook` in `{shown}` is "
                               f"{derive_kind(value)}, not define_hook()",
                               "bind `hook = define_hook(events={...})`", line=line))
            continue
        details, problems = checks.check_hook(value, Where(shown, line))
        found.extend(problems)
        files.hooks.setdefault(site.mount_path, []).append(CompiledContribution(
            kind="hook", name=entry.name, local_name=entry.name, mount=site.namespace,
            mount_path=site.mount_path, source="directory-override",
            module=f"{AGENT_PACKAGE}.{dotted(path)}", attribute="hook", file=shown,
            identity=f"agent:{path}", details=details,
        ))
    for skill in directory.tree.skills:
        shown = f"{app.display}{base}/{skill.path}"
        override, problems = load_skill_override(skill.name, site.directory / skill.path
                                                  if site.directory else Path(skill.path),
                                                  shown, skill.packaged)
        found.extend(problems)
        overrides.extend([override] if override else [])
    found.extend(_instructions(app, directory, loaded, files))
    return found


def _instructions(app: App, directory: DirectoryMount, loaded: LoadedModules,
                  files: AgentFiles) -> list[Diagnostic]:
    relative, folder = directory.tree.instructions, directory.site.directory
    if relative is None or folder is None:
        return []
    site, path = directory.site, f"{directory.relative}/{relative}"
    common: dict[str, Any] = {"mount": site.namespace, "mount_path": site.mount_path,
                              "file": f"{app.display}{path}"}
    target = files.instructions.setdefault(site.mount_path, [])
    if relative.endswith(".md"):
        text, found = read_instructions(folder / relative, common["file"])
        if text is not None:
            target.append(CompiledInstructions(kind="markdown", text=text, **common))
        return found
    module = loaded.modules.get(path)
    value = getattr(module, slots.INSTRUCTIONS_ATTRIBUTE, None) if module else None
    if module is None:
        return []
    if not isinstance(value, Instructions):
        return [error("load/definition-wrong-kind", common["file"],
                      f"`instructions` is {derive_kind(value)}, not define_instructions()",
                      "bind `instructions = define_instructions(render=...)`")]
    target.append(CompiledInstructions(kind="dynamic", module=f"{AGENT_PACKAGE}.{dotted(path)}",
                                       **common))
    return checks.check_instructions(value, Where(common["file"], None))
