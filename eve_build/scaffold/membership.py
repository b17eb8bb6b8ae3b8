"""`eve extension init` inside a uv workspace: the new package becomes a member.

A member gets no git repository of its own (the workspace's repository holds it), no
`.venv` of its own (uv gives the workspace one environment) and no CI workflow of its
own. The workspace root's pyproject.toml is edited with tomlkit, so its comments and
formatting stay: the member's folder joins `[tool.uv.workspace] members` unless a
pattern there already covers it, and `[tool.uv.sources]` gets
`NAME = { workspace = true }`.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import tomlkit
from tomlkit.items import Table

from eve_build.consumer.workspace import locate_workspace, try_find_workspace_root
from eve_build.errors import EveBuildError
from eve_build.project.pyproject import PYPROJECT


def try_find_member_workspace(target: Path) -> Path | None:
    """The uv workspace root above `target` (which may not exist yet), or None."""
    start = target.resolve()
    existing = next((p for p in (start, *start.parents) if p.is_dir()), None)
    if existing is None:
        return None
    root = try_find_workspace_root(existing)
    return None if root == start else root


def join_workspace(root: Path, member: Path, name: str, *, source: bool = True) -> list[str]:
    """Add `member` (a folder under `root`) to the workspace as `name`; the steps done.

    `source=False` (an agent project, which nothing depends on) adds no
    `[tool.uv.sources]` entry."""
    path = root / PYPROJECT
    try:
        document = tomlkit.parse(path.read_text(encoding="utf-8"))
    except (OSError, tomlkit.exceptions.TOMLKitError) as exc:
        raise EveBuildError(f"cannot read the workspace's `{path}`: {exc}",
                            "fix it, then add the package to `[tool.uv.workspace] members` "
                            "by hand") from None
    relative = member.resolve().relative_to(root.resolve()).as_posix()
    steps: list[str] = []
    workspace, _ = locate_workspace(root)
    covered = workspace is not None and member.resolve() in workspace.members
    tool = _table(document, "tool")
    uv = _table(tool, "uv")
    if not covered:
        members = _table(uv, "workspace").setdefault("members", tomlkit.array())
        members.append(relative)
        steps.append(f"added `{relative}` to `[tool.uv.workspace] members` in {PYPROJECT}")
    sources = _table(uv, "sources") if source else None
    if sources is not None and name not in sources:
        entry = tomlkit.inline_table()
        entry["workspace"] = True
        sources[name] = entry
        steps.append(f"added `{name} = {{ workspace = true }}` to `[tool.uv.sources]`")
    if steps:
        _write_atomically(path, tomlkit.dumps(document))
    return steps


def _table(parent: tomlkit.TOMLDocument | Table, key: str) -> Table:
    if key not in parent:
        parent[key] = tomlkit.table(is_super_table=key in ("tool", "uv"))
    table = parent[key]
    if not isinstance(table, Table):
        raise EveBuildError(f"the workspace's `{key}` in {PYPROJECT} is not a table",
                            "add the package to `[tool.uv.workspace] members` by hand")
    return table


def _write_atomically(path: Path, text: str) -> None:
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    with os.fdopen(handle, "w", encoding="utf-8") as stream:
        stream.write(text)
    Path(temporary).replace(path)
