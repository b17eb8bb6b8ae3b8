"""Mount files: where they are, what namespace they give, and which package they mount.

`agent/extensions/crm.py` and `agent/extensions/crm/extension.py` are the same mount
(`crm`); the second is a directory mount whose folder may hold overrides. Mounts also
live in the agent's own subagents (`agent/subagents/research/extensions/crm.py`) and
inside an extension's subagents (`subagents/<id>/extensions/`, listed in the manifest).

Which package a mount file mounts is read from its source with `ast`, never by
importing it: the compatibility check must come before any extension code runs.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eve_build import slots
from eve_build.diagnostics import Diagnostic, error
from eve_build.errors import describe_syntax_error
from eve_build.formats.compiled import AGENT_PACKAGE
from eve_build.naming import Namespace, derive_namespace, find_segment_problems
from eve_build.output.generate import SOURCE_PACKAGE
from eve_build.project.app import App
from eve_build.source.layout import AgentTree
from eve_build.userfile import read_user_text

MAX_NESTING = 8
_NOT_EXTENSIONS = frozenset({"__future__", "eve_build", *sys.stdlib_module_names})


@dataclass(frozen=True)
class MountSite:
    """One mount file and the logical place of its mount."""

    namespace: Namespace
    file: Path  # absolute
    shown: str  # how messages name it: `agent/extensions/crm.py`
    module: str  # dotted: `eve_agent.extensions.crm`
    mount_path: str  # logical, keys state: `extensions/crm`
    tree_path: str  # the compiled tree holding it: "", "research", "crm__reviewer"
    directory: Path | None = None  # a directory mount's folder, which may hold overrides
    parent: MountSite | None = None  # the mount whose extension subagent holds this one
    depth: int = 0


@dataclass(frozen=True)
class MountSource:
    """What the mount file's source says, read with `ast`."""

    modules: tuple[str, ...]  # the factory's module; or, when the file does not show where
    # the factory comes from, every imported top-level module that could be the extension
    line: int | None  # the line binding `mount`


def _split(relative: str) -> tuple[str, Namespace, bool]:
    """`subagents/a/extensions/crm/extension.py` -> (`subagents/a/`, `crm`, directory)."""
    head, _, rest = relative.rpartition(f"{slots.MOUNTS_DIRECTORY}/")
    directory = rest.endswith(f"/{slots.EXTENSION_MODULE}")
    name = rest.split("/")[0] if directory else rest.removesuffix(".py")
    return head, derive_namespace(name), directory


def _dotted(relative: str) -> str:
    return relative.removesuffix(".py").replace("/", ".")


def discover_mounts(tree: AgentTree, app: App) -> tuple[list[MountSite], list[Diagnostic]]:
    """The mount files of the agent and of its own subagents, sorted by namespace per tree."""
    sites: list[MountSite] = []
    found: list[Diagnostic] = []
    for node in tree.walk():
        candidates = []
        for rel in node.mounts:
            head, namespace, directory = _split(rel)
            candidates.append(MountSite(
                namespace=namespace, file=app.agent_dir / rel, shown=f"{app.display}{rel}",
                module=f"{AGENT_PACKAGE}.{_dotted(rel)}",
                mount_path=f"{head}{slots.MOUNTS_DIRECTORY}/{namespace}", tree_path=node.path,
                directory=(app.agent_dir / rel).parent if directory else None,
            ))
        found.extend(_collect(candidates, node.path, sites))
    return sites, found


def derive_nested_sites(
    parent: MountSite, import_name: str, package_dir: Path, contributions: dict[str, Any]
) -> tuple[list[MountSite], list[Diagnostic]]:
    """Mounts inside the subagents an extension contributes, from its manifest."""
    sites: list[MountSite] = []
    found: list[Diagnostic] = []
    source = package_dir / SOURCE_PACKAGE
    for record in _subagent_records(contributions):
        inner = record.get("contributions")
        listed = inner.get("mounts", []) if isinstance(inner, dict) else []
        mounts = [m for m in listed if isinstance(m, str)]
        if not mounts:
            continue
        if parent.depth + 1 > MAX_NESTING:
            found.append(error(
                "mount/nesting-too-deep", parent.shown,
                f"mounts inside extension subagents nest more than {MAX_NESTING} deep below "
                f"`{parent.shown}`: the extensions probably mount each other in a cycle",
                "remove the mount that closes the cycle",
            ))
            return [], found
        tree_path = "/".join(p for p in (
            parent.tree_path, f"{parent.namespace}__{record.get('path', '')}") if p)
        candidates = []
        for rel in mounts:
            head, namespace, _ = _split(rel)
            candidates.append(MountSite(
                namespace=namespace, file=source / rel,
                shown=f"{import_name}/{SOURCE_PACKAGE}/{rel}",
                module=f"{import_name}.{SOURCE_PACKAGE}.{_dotted(rel)}",
                mount_path=f"{parent.mount_path}/{head}{slots.MOUNTS_DIRECTORY}/{namespace}",
                tree_path=tree_path, parent=parent, depth=parent.depth + 1,
            ))
        found.extend(_collect(candidates, tree_path, sites))
    return sites, found


def _subagent_records(contributions: dict[str, Any]) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = []
    for record in contributions.get("subagents", []):
        if isinstance(record, dict):
            records.append(record)
            inner = record.get("contributions")
            records.extend(_subagent_records(inner if isinstance(inner, dict) else {}))
    return records


def _collect(candidates: list[MountSite], tree_path: str,
             sites: list[MountSite]) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    by_namespace: dict[str, MountSite] = {}
    for site in sorted(candidates, key=lambda c: (c.namespace, c.shown)):
        problems = find_segment_problems(site.namespace)
        if problems:
            found.append(error(
                "mount/namespace-invalid", site.shown,
                f"the mount file `{site.shown}` gives the namespace `{site.namespace}`, which "
                f"is not valid: {'; '.join(problems)}",
                "rename the mount file: its name is the namespace of every contribution",
            ))
            continue
        other = by_namespace.get(site.namespace)
        if other is not None:
            found.append(error(
                "mount/duplicate", site.shown,
                f"`{other.shown}` and `{site.shown}` both mount the namespace "
                f"`{site.namespace}`" + (f" in `{tree_path}`" if tree_path else ""),
                "keep one of them: a directory mount (`extensions/<ns>/extension.py`) is the "
                "same mount as `extensions/<ns>.py`, with room for overrides",
            ))
            continue
        by_namespace[site.namespace] = site
        sites.append(site)
    return found


def parse_mount_file(site: MountSite) -> tuple[MountSource | None, list[Diagnostic]]:
    """Read which modules the mount file imports and where it binds `mount` (no import)."""
    try:
        tree = ast.parse(read_user_text(site.file, what="mount file"), filename=str(site.file))
    except SyntaxError as exc:
        return None, [error("load/syntax-error", site.shown, describe_syntax_error(exc),
                            "fix the syntax error on this line", line=exc.lineno)]
    except (OSError, UnicodeDecodeError) as exc:
        return None, [error("load/import-failed", site.shown,
                            f"`{site.shown}` cannot be read: {exc}", "check the file")]
    imported: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                imported[alias.asname or alias.name] = node.module.split(".")[0]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.split(".")[0]
                imported[alias.asname or top] = top
    value, line = _mount_value(tree)
    if value is None:
        return None, [error(
            "mount/definition-missing", site.shown,
            f"`{site.shown}` does not bind `{slots.MOUNT_ATTRIBUTE}`",
            "mount the extension with `mount = <factory>(...)`, e.g. "
            "`from acme_crm import acme_crm` and `mount = acme_crm(api_key=env(\"KEY\"))`",
        )]
    first = imported.get(_root_name(value) or "")
    if first is not None and first not in _NOT_EXTENSIONS:
        return MountSource(modules=(first,), line=line), []  # the factory's own module
    modules = [m for m in imported.values() if m not in _NOT_EXTENSIONS]
    if not modules:
        return None, [error(
            "mount/package-unknown", site.shown,
            f"`{site.shown}` imports no module that could be the extension it mounts",
            "import the extension's mount factory, e.g. `from acme_crm import acme_crm`",
            line=line,
        )]
    return MountSource(modules=tuple(dict.fromkeys(modules)), line=line), []


def _mount_value(tree: ast.Module) -> tuple[ast.expr | None, int | None]:
    found: tuple[ast.expr | None, int | None] = (None, None)
    for node in tree.body:
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets = [node.target]
        elif isinstance(node, ast.ImportFrom) and any(  # `from gizmo import gizmo as mount`
                (a.asname or a.name) == slots.MOUNT_ATTRIBUTE for a in node.names):
            found = (ast.Name(id=slots.MOUNT_ATTRIBUTE, ctx=ast.Load()), node.lineno)
            continue
        if any(isinstance(t, ast.Name) and t.id == slots.MOUNT_ATTRIBUTE for t in targets):
            assert isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None
            found = (node.value, node.lineno)
    return found


def _root_name(value: ast.expr) -> str | None:
    """`crm(...)` -> `crm`; `acme_crm.acme_crm(...)` -> `acme_crm`; `gizmo` -> `gizmo`."""
    node = value.func if isinstance(value, ast.Call) else value
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None
