"""`eve build --plan --json`: the workspace's build graph, for CI matrices and remote builds.

    plan = derive_plan(Path("."))

One entry per source-backed extension (a workspace member with `[tool.eve.extension]`):
its folder, whether its output is `stale` or `fresh` and why, the hash of its inputs
(both by the freshness rule, `eve_build.formats.freshness`: pyproject.toml, every file
under the source folder, the eve-build version: the same inputs give the same output,
so it can key a remote cache), and its dependents (workspace packages that
declare it as a dependency, agents whose mount files import it). `matrix` lists the
stale ones in the shape a GitHub Actions matrix takes (`fromJSON(...)`). Reading the
plan imports no user code and writes nothing.
"""

from __future__ import annotations

import ast
import os
import tomllib
from pathlib import Path
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from eve_build._version import __version__
from eve_build.consumer.freshness import explain_staleness
from eve_build.consumer.sources import find_mount_files
from eve_build.consumer.workspace import locate_workspace, try_find_workspace_root
from eve_build.diagnostics import Diagnostic
from eve_build.errors import DiagnosticsError
from eve_build.formats.freshness import Inputs, read_inputs
from eve_build.project.pyproject import PYPROJECT, ExtensionProject
from eve_build.userfile import read_user_bytes, read_user_text

PLAN_FORMAT_VERSION = 1


def derive_plan(start: Path) -> dict[str, Any]:
    """The build plan of the workspace holding `start` (raises DiagnosticsError)."""
    from eve_build.extension.build import locate_extension_project

    start = start.resolve()
    root = try_find_workspace_root(start) or start
    workspace, found = locate_workspace(root)
    if found:
        raise DiagnosticsError("cannot plan the workspace build", found)
    members = list(workspace.members) if workspace is not None else []
    extensions: list[dict[str, Any]] = []
    problems: list[Diagnostic] = []
    for member in (workspace.extension_members() if workspace is not None else []):
        try:
            project = locate_extension_project(member)
        except DiagnosticsError as exc:
            problems.extend(exc.diagnostics)
            continue
        reason = explain_staleness(project)
        extensions.append({
            "name": project.name,
            "dir": _relative(member, root),
            "state": "fresh" if reason is None else "stale",
            "reason": reason,
            "inputHash": derive_input_hash(project),
            "dependents": find_dependents(project, root, members),
        })
    if problems:
        raise DiagnosticsError("cannot plan the workspace build", problems)
    stale = [e for e in extensions if e["state"] == "stale"]
    return {
        "formatVersion": PLAN_FORMAT_VERSION,
        "builtWithEve": __version__,
        "workspace": _relative(root, start) if root != start else ".",
        "extensions": extensions,
        "matrix": {"include": [{"name": e["name"], "dir": e["dir"],
                                "inputHash": e["inputHash"]} for e in stale]},
    }


def derive_input_hash(project: ExtensionProject) -> str:
    """The freshness rule's digest of the inputs (`formats.freshness.Inputs.digest`: the
    eve-build version, pyproject.toml and every file under the source folder); a tree the
    rule cannot read is hashed by its pyproject.toml alone, and is `stale`."""
    inputs = read_inputs(project.root, project.source)
    if inputs is None:
        inputs = Inputs(project.source, {"pyproject.toml": "unreadable"}, ())
    return inputs.digest


def find_dependents(project: ExtensionProject, root: Path, members: list[Path]) -> list[str]:
    """Folders (relative to the workspace root) of what needs this extension built first."""
    name = canonicalize_name(project.name)
    dependents: set[str] = set()
    for folder in {root, *members}:
        if folder != project.root and name in _declared(folder / PYPROJECT):
            dependents.add(_relative(folder, root))
    for agent in _agent_folders(root):
        if project.import_name in _mounted_imports(agent):
            dependents.add(_relative(agent.parent, root))
    return sorted(dependents)


def _declared(pyproject: Path) -> set[str]:
    try:
        data = tomllib.loads(read_user_text(pyproject, what="pyproject"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):
        return set()
    project = data.get("project")
    raw = project.get("dependencies", []) if isinstance(project, dict) else []
    names: set[str] = set()
    for item in raw if isinstance(raw, list) else []:
        try:
            names.add(canonicalize_name(Requirement(str(item)).name))
        except InvalidRequirement:
            continue
    return names


def _agent_folders(root: Path) -> list[Path]:
    found = [root / "agent"] if (root / "agent").is_dir() else []
    agents = root / "agents"
    if agents.is_dir():
        found += sorted(p / "agent" for p in agents.iterdir() if (p / "agent").is_dir())
    return found


def _mounted_imports(agent: Path) -> set[str]:
    """Top-level modules imported by the agent's mount files (any depth, statically)."""
    tops: set[str] = set()
    for file in find_mount_files(agent):
        try:
            tree = ast.parse(read_user_bytes(file, what="mount file").data)
        except (OSError, SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                tops.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                tops.add(node.module.split(".")[0])
    return tops


def _relative(path: Path, root: Path) -> str:
    return Path(os.path.relpath(path, root)).as_posix()
