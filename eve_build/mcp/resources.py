"""Skills as MCP resources: `skill://crm__triage` is SKILL.md, each asset beside it a
resource of its own (`skill://crm__triage/templates/reply.txt`).

Package skills are read from the installed (or workspace-built) package, the agent's
own skills from the agent folder; nothing is copied.
"""

from __future__ import annotations

import importlib.util
import mimetypes
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from mcp import types

from eve_build.formats.compiled import CompiledContribution, CompiledTree, walk_trees
from eve_build.runtime.agent import Agent

SCHEME = "skill://"


@dataclass(frozen=True)
class SkillFile:
    uri: str
    name: str
    description: str
    path: Path
    mime_type: str


def find_skill_files(agent: Agent, app_root: Path, subagent: str | None) -> list[SkillFile]:
    """Every skill of the tree (and its assets) as a resource, in name order."""
    tree = _tree(agent, subagent)
    found: list[SkillFile] = []
    for skill in sorted(tree.skills if tree else [], key=lambda s: s.name):
        main = _locate(skill, app_root)
        if main is None:
            continue
        description = str(skill.details.get("description", ""))
        found.append(SkillFile(f"{SCHEME}{skill.name}", skill.name, description, main,
                               "text/markdown"))
        rel = PurePosixPath(skill.identity.partition(":")[2] or skill.file)
        for asset in skill.details.get("assets", []):
            inside = PurePosixPath(asset).relative_to(rel.parent)  # path below the skill folder
            found.append(SkillFile(f"{SCHEME}{skill.name}/{inside}", f"{skill.name}/{inside}",
                                   f"asset of the skill `{skill.name}`",
                                   main.parent.joinpath(*inside.parts), _mime(inside.name)))
    return found


def derive_mcp_resources(files: list[SkillFile]) -> list[types.Resource]:
    return [types.Resource(uri=f.uri, name=f.name, description=f.description,
                           mime_type=f.mime_type) for f in files]


def read_skill_resource(files: list[SkillFile], uri: str) -> types.ReadResourceResult:
    """The text of one resource; raises LookupError for a URI that is not one."""
    for item in files:
        if item.uri == uri:
            text = item.path.read_text(encoding="utf-8", errors="replace")
            return types.ReadResourceResult(contents=[types.TextResourceContents(
                uri=uri, mime_type=item.mime_type, text=text)])
    raise LookupError(f"no resource `{uri}`: skills are `skill://<name>` and their assets "
                      "`skill://<name>/<path>`")


def _tree(agent: Agent, subagent: str | None) -> CompiledTree | None:
    for tree in walk_trees(agent.compiled.root):
        if tree.path == (subagent or "") or (not subagent and tree is agent.compiled.root):
            return tree
    return None


def _locate(skill: CompiledContribution, app_root: Path) -> Path | None:
    """The skill file on disk: package files from the package, the rest from the app."""
    if skill.source != "package":
        return app_root / skill.file
    package = skill.file.split("/", 1)[0]
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))).parent / skill.file


def _mime(name: str) -> str:
    if name.endswith(".md"):
        return "text/markdown"
    return mimetypes.guess_type(name)[0] or "text/plain"
