"""Walk an agent-shaped tree into a SourceLayout, collecting diagnostics.

Walks are sorted, ignore caches, tests and dotfiles, and never follow a symlink
that leaves the package. Names come from paths through `eve_build.naming`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from eve_build import slots
from eve_build.diagnostics import Diagnostic, error, warning
from eve_build.naming import (
    MOUNT_SEPARATOR,
    ContributionName,
    derive_name,
    find_segment_problems,
)
from eve_build.source.layout import AgentTree, ModuleEntry, SkillEntry, SourceLayout
from eve_build.source.names import find_name_problems
from eve_build.source.tree import DiskTree, SourceTree, join
from eve_build.source.walk import Walk, discover_files

Role = Literal["extension", "agent", "mount"]
"""`mount`: the folder of a directory mount, `agent/extensions/<ns>/`, holding overrides."""


def discover_source(
    source: Path, *, display: str, package_root: Path, role: Role = "extension"
) -> tuple[SourceLayout, list[Diagnostic]]:
    """Discover the slots under `source` (an extension source root or an agent folder)."""
    return discover_tree(DiskTree(source, package_root), display=display, role=role)


def discover_tree(
    tree: SourceTree, *, display: str, role: Role = "extension"
) -> tuple[SourceLayout, list[Diagnostic]]:
    """Discover the slots of a tree, read only through `SourceTree` (STYLE R7)."""
    walk = Walk(tree=tree, display=display, qualified=role == "agent")
    # Only an extension ships its files; an agent folder may hold anything (a venv...).
    files = discover_files(walk) if role == "extension" else []
    agent_tree = _discover_tree(walk, "", prefix="", path="", role=role)
    if role == "extension" and not tree.is_file(slots.EXTENSION_MODULE):
        walk.found.append(error(
            "discover/extension-module-missing", f"{display}{slots.EXTENSION_MODULE}",
            f"the source root has no `{slots.EXTENSION_MODULE}`",
            f"create `{display}{slots.EXTENSION_MODULE}` with "
            "`extension = define_extension()` (from eve_build.sdk)",
        ))
    return SourceLayout(tree=agent_tree, files=files), walk.found


def _discover_tree(walk: Walk, directory: str, *, prefix: str, path: str, role: str) -> AgentTree:
    tree = AgentTree(prefix=prefix, path=path)
    for entry in walk.children(directory):
        name = entry.name
        if role == "extension" and name in slots.RESERVED_EXTENSION_ENTRIES:
            walk.found.append(error(
                "discover/reserved-entry", walk.shown(entry.path),
                f"`{name}` belongs to the consuming agent and cannot be part of an extension",
                f"remove `{walk.shown(entry.path)}`, or move it into a subagent under "
                "`subagents/<id>/`" if name != "extensions" else
                "an extension cannot mount other extensions at its root: mount them in "
                "a subagent under `subagents/<id>/extensions/`, or in the agent",
            ))
            continue
        slot = slots.SLOTS_BY_DIRECTORY.get(name)
        if entry.is_dir and slot is not None:
            if slot.layout == "modules":
                found = _discover_modules(walk, entry.path, slot)
                tree.modules.extend(m for m in found if MOUNT_SEPARATOR not in m.name)
                tree.overrides.extend(m for m in found if MOUNT_SEPARATOR in m.name)
            elif slot.layout == "skills":
                skills = _discover_skills(walk, entry.path)
                tree.skills.extend(k for k in skills if MOUNT_SEPARATOR not in k.name)
                tree.skill_overrides.extend(k for k in skills if MOUNT_SEPARATOR in k.name)
            else:
                subagents, overrides = _discover_subagents(walk, entry.path, path, role)
                tree.subagents.extend(subagents)
                tree.subagent_overrides.extend(overrides)
        elif entry.is_file and (slot is not None or (name == slots.MOUNTS_DIRECTORY
                                                     and role != "extension")):
            walk.found.append(error(
                "discover/slot-not-folder", walk.shown(entry.path),
                f"`{walk.shown(entry.path)}` is a file, but `{name}` is a slot: a folder of "
                "contributions; nothing in it is contributed",
                f"make `{walk.shown(entry.path)}/` a folder, or rename the file",
            ))
        elif entry.is_dir and name == slots.MOUNTS_DIRECTORY and role != "extension":
            tree.mounts.extend(_discover_mounts(walk, entry.path))
        elif entry.is_dir and (near := slots.try_suggest_slot(name)) is not None:
            walk.found.append(warning(
                "discover/folder-unknown", walk.shown(entry.path),
                f"`{walk.shown(entry.path)}/` is not a slot, so nothing in it is contributed",
                f"rename it to `{near}/` if it holds {near}",
            ))
    tree.instructions = _discover_instructions(walk, directory)
    if role == "subagent":
        agent_file = join(directory, slots.AGENT_MODULE)
        if walk.tree.is_file(agent_file):
            tree.agent_module = agent_file
        else:
            walk.found.append(error(
                "discover/agent-module-missing", walk.shown(agent_file),
                f"the subagent `{path}` has no `{slots.AGENT_MODULE}`",
                f"create `{walk.shown(agent_file)}` with "
                '`agent = define_agent(description="...")`',
            ))
    elif role == "agent" and walk.tree.is_file(join(directory, slots.AGENT_MODULE)):
        tree.agent_module = join(directory, slots.AGENT_MODULE)
    walk.found.extend(find_name_problems(tree, walk.display))
    return tree


def _discover_instructions(walk: Walk, directory: str) -> str | None:
    markdown = join(directory, slots.INSTRUCTIONS_MARKDOWN)
    module = join(directory, slots.INSTRUCTIONS_MODULE)
    if walk.tree.is_file(markdown) and walk.tree.is_file(module):
        walk.found.append(error(
            "discover/instructions-duplicate", walk.shown(module),
            "both `instructions.md` and `instructions.py` exist; only one can be used",
            "keep `instructions.md` for static text or `instructions.py` for rendered text",
        ))
    if walk.tree.is_file(module):
        return module
    if walk.tree.is_file(markdown):
        return markdown
    return None


def _discover_modules(
    walk: Walk, directory: str, slot: slots.Slot, segments: tuple[str, ...] = ()
) -> list[ModuleEntry]:
    entries: list[ModuleEntry] = []
    children = [e for e in walk.children(directory) if not slots.is_private(e.name)]
    modules = {e.stem for e in children if e.is_file and e.suffix == ".py"}
    for entry in children:
        is_module = entry.is_file and entry.suffix == ".py"
        if entry.is_file and not is_module:
            continue
        segment = entry.stem if is_module else entry.name
        if entry.is_dir and segment in modules:
            module = walk.shown(f"{entry.path}.py")
            walk.found.append(error(
                "discover/name-collision", walk.shown(entry.path),
                f"`{module}` and the folder `{walk.shown(entry.path)}/` both give the "
                f"{slot.kind} name `{segment}`, and Python could not import both",
                f"rename one of them, or move `{module}` into the folder",
            ))
            continue
        if entry.is_dir and not slot.nested:
            walk.found.append(error(
                "discover/unexpected-entry", walk.shown(entry.path),
                f"`{slot.directory}/` is flat: the folder `{entry.name}/` cannot hold "
                f"{slot.kind} contributions",
                f"move it to `{walk.shown(entry.path)}.py`, or name the folder `_{entry.name}` "
                "if it holds helpers",
            ))
            continue
        if is_module and _is_override(walk, slot, segments, segment):
            entries.append(ModuleEntry(slot=slot, name=ContributionName(segment),
                                       path=entry.path))
            continue
        if not walk.check_segment(entry, segment):
            continue
        if is_module:
            joined = derive_name([*segments, segment], slot.joiner or "")
            entries.append(ModuleEntry(slot=slot, name=joined, path=entry.path))
        else:
            entries.extend(_discover_modules(walk, entry.path, slot, (*segments, segment)))
    return entries


def _is_override(walk: Walk, slot: slots.Slot, segments: tuple[str, ...], segment: str, *,
                 qualified_subagents: bool = False) -> bool:
    """In an agent tree, `tools/crm__search.py` (or `skills/crm__triage.md`) names a mounted
    contribution to override."""
    if not walk.qualified or segments or not slot.prefixed or (
            slot.layout == "subagents" and not qualified_subagents):
        return False
    namespace, sep, name = segment.partition(MOUNT_SEPARATOR)
    return bool(sep) and not find_segment_problems(namespace) and not find_segment_problems(name)


def _discover_skills(walk: Walk, directory: str) -> list[SkillEntry]:
    skills: list[SkillEntry] = []
    seen: dict[str, str] = {}
    for entry in walk.children(directory):
        if entry.is_file and entry.suffix == ".py" and not slots.is_private(entry.name):
            walk.found.append(error(  # eve resolves these in a sandbox, which this host lacks
                "discover/skill-dynamic-unsupported", walk.shown(entry.path),
                f"`{walk.shown(entry.path)}` is a Python module, but skills are markdown: "
                "dynamic skills are not supported",
                f"write the skill as `{walk.shown(entry.path)[:-3]}.md` (or a folder with "
                "SKILL.md); text that must be rendered per mount belongs in `instructions.py`",
            ))
            continue
        if (entry.is_file and entry.suffix != ".md") or slots.is_private(entry.name):
            continue
        segment = entry.stem if entry.is_file else entry.name
        if segment in seen:
            walk.found.append(error(
                "discover/name-collision", walk.shown(entry.path),
                f"`{walk.shown(seen[segment])}` and `{walk.shown(entry.path)}` are both the skill "
                f"`{segment}`", "rename or remove one of them",
            ))
            continue
        seen[segment] = entry.path
        qualified = _is_override(walk, slots.SKILLS, (), segment)  # `crm__triage.md`
        if not qualified and not walk.check_segment(entry, segment):
            continue
        name = ContributionName(segment)
        if entry.is_file:
            skills.append(SkillEntry(name=name, path=entry.path, packaged=False))
            continue
        skill_file = entry.child(slots.SKILL_FILE)
        if not walk.tree.is_file(skill_file):
            walk.found.append(error(
                "discover/skill-file-missing", walk.shown(entry.path),
                f"the skill folder `{walk.shown(entry.path)}/` has no `{slots.SKILL_FILE}`",
                f"add `{walk.shown(skill_file)}` with a `description` in its frontmatter",
            ))
            continue
        assets = tuple(f for f in _files_below(walk, entry.path) if f != skill_file)
        skills.append(SkillEntry(name=name, path=skill_file, packaged=True,
                                 assets=assets))
    return skills


def _files_below(walk: Walk, directory: str) -> list[str]:
    files: list[str] = []
    for entry in walk.children(directory):
        if entry.is_dir:
            files.extend(_files_below(walk, entry.path))
        else:
            files.append(entry.path)
    return files


def _discover_subagents(walk: Walk, directory: str, parent: str, role: str
                        ) -> tuple[list[AgentTree], list[AgentTree]]:
    """(subagents, subagent overrides). An override folder overrides contributions of a
    mounted extension's subagent: `agent/subagents/crm__reviewer/` at the agent root, or
    any `subagents/<id>/` beside a directory mount; it needs no `agent.py`."""
    trees: list[AgentTree] = []
    overrides: list[AgentTree] = []
    for entry in walk.children(directory):
        if not entry.is_dir:
            continue
        override = role == "mount" or (role == "agent" and not parent and _is_override(
            walk, slots.SUBAGENTS, (), entry.name, qualified_subagents=True))
        if not (override and role == "agent") and not walk.check_segment(entry, entry.name):
            continue
        path = f"{parent}/{entry.name}" if parent else entry.name
        sub = _discover_tree(walk, entry.path, prefix=f"{entry.path}/", path=path,
                             role="mount" if override else "subagent")
        sub.name = ContributionName(entry.name)
        (overrides if override else trees).append(sub)
    return trees, overrides


def _discover_mounts(walk: Walk, directory: str) -> list[str]:
    """Mount files: `extensions/<ns>.py` or `extensions/<ns>/extension.py`."""
    mounts: list[str] = []
    for entry in walk.children(directory):
        if entry.is_file and entry.suffix == ".py" and not slots.is_private(entry.name):
            mounts.append(entry.path)
        elif entry.is_dir and walk.tree.is_file(entry.child(slots.EXTENSION_MODULE)):
            mounts.append(entry.child(slots.EXTENSION_MODULE))
    return mounts
