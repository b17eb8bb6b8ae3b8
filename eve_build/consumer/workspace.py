"""uv workspaces: the root `[tool.uv.workspace]` and the extension packages among its members.

    [tool.uv.workspace]
    members = ["packages/*"]
    exclude = ["packages/legacy"]

The workspace root is the nearest folder, from the app root upwards, whose
pyproject.toml has `[tool.uv.workspace]` (as uv finds it). Members that declare
`[tool.eve.extension]` are source-backed extensions: `eve build` builds them before
the agent.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eve_build.diagnostics import Diagnostic, error, locate_toml_error
from eve_build.project.app import derive_shown
from eve_build.project.pyproject import PYPROJECT
from eve_build.project.values import is_str_list
from eve_build.userfile import read_user_text


@dataclass(frozen=True)
class Workspace:
    root: Path
    members: tuple[Path, ...]  # member folders with a pyproject.toml, sorted

    def extension_members(self) -> list[Path]:
        """Members that are eve extension packages (`[tool.eve.extension]`)."""
        return [m for m in self.members if is_extension_package(m)]


def _read_toml(path: Path) -> dict[str, Any] | None:
    try:
        return tomllib.loads(read_user_text(path, what="pyproject"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):
        return None


def _find_toml_error_line(path: Path) -> int | None:
    """The line the TOML parser stops at in `path`, if it says one."""
    problem = _find_toml_problem(path)
    return problem[1] if problem else None


def _find_toml_problem(path: Path) -> tuple[str, int | None] | None:
    """Why `path` is not valid TOML and the line the parser stopped at; None when it
    parses (or cannot be read at all: other checks report that)."""
    text: str | None = None
    try:
        text = read_user_text(path, what="pyproject")
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return str(exc), locate_toml_error(exc, text)
    except UnicodeDecodeError:
        return "it is not UTF-8 text", None
    except RecursionError:
        return "its values are nested too deeply", None
    except OSError:
        return None
    return None


def _table(data: dict[str, Any] | None, *keys: str) -> dict[str, Any] | None:
    value: Any = data
    for key in keys:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value if isinstance(value, dict) else None


def is_extension_package(root: Path) -> bool:
    return _table(_read_toml(root / PYPROJECT), "tool", "eve", "extension") is not None


def try_find_workspace_root(app_root: Path) -> Path | None:
    """The nearest folder at or above `app_root` whose pyproject has `[tool.uv.workspace]`."""
    for folder in (app_root, *app_root.parents):
        path = folder / PYPROJECT
        if not path.is_file():
            continue
        data = _read_toml(path)
        if data is None and "workspace" in path.read_text(encoding="utf-8", errors="replace"):
            return folder  # probably a workspace root: locate_workspace reports the TOML error
        if _table(data, "tool", "uv", "workspace") is not None:
            return folder
    return None


def locate_workspace(app_root: Path) -> tuple[Workspace | None, list[Diagnostic]]:
    """The workspace holding the app, or None when the app is not in a uv workspace."""
    root = try_find_workspace_root(app_root)
    if root is None:
        return None, []
    shown = derive_shown(root / PYPROJECT, app_root)
    data = _read_toml(root / PYPROJECT)
    table = _table(data, "tool", "uv", "workspace")
    if data is None or table is None:
        return None, [error(
            "workspace/pyproject-invalid", shown,
            f"`{shown}` is not valid TOML, so its `[tool.uv.workspace]` cannot be read",
            "fix the TOML syntax", line=_find_toml_error_line(root / PYPROJECT),
        )]
    members = table.get("members", [])
    exclude = table.get("exclude", [])
    if not is_str_list(members) or not is_str_list(exclude):
        return None, [error(
            "workspace/pyproject-invalid", shown,
            "`tool.uv.workspace.members` and `tool.uv.workspace.exclude` must be lists of "
            "glob patterns", 'write them as `members = ["packages/*"]`',
        )]
    odd = [p for p in [*members, *exclude] if find_pattern_problem(p)]
    if odd:
        return None, [error(
            "workspace/member-invalid", shown,
            f"the workspace pattern `{pattern[:100]}` {find_pattern_problem(pattern)}",
            'use relative glob patterns of member folders, such as `members = ["packages/*"]`',
        ) for pattern in odd]
    try:
        expanded = _expand(root, members, exclude)
    except (ValueError, NotImplementedError, OSError, RuntimeError) as exc:  # glob syntax, loops
        return None, [error(
            "workspace/member-invalid", shown,
            f"the workspace patterns cannot be expanded: {str(exc)[:200]}",
            'use relative glob patterns of member folders, such as `members = ["packages/*"]`',
        )]
    broken = [error(
        "workspace/member-pyproject-invalid", derive_shown(member / PYPROJECT, app_root),
        f"`{derive_shown(member / PYPROJECT, app_root)}` of the workspace member "
        f"`{member.name}` is not valid TOML: {problem[0]}",
        "fix its TOML syntax: until it parses, the member is neither built nor mounted",
        line=problem[1],
    ) for member in expanded if (problem := _find_toml_problem(member / PYPROJECT))]
    return Workspace(root=root, members=tuple(expanded)), broken


def find_pattern_problem(pattern: str) -> str:
    """Why a members/exclude pattern names no member folder ("" when it is fine)."""
    if not pattern.strip():
        return "is empty"
    parts = Path(pattern).parts
    if Path(pattern).is_absolute() or pattern.startswith("~"):
        return "is absolute; members are folders inside the workspace"
    if ".." in parts:
        return "leaves the workspace (`..`)"
    if all(part == "." for part in parts):
        return "is the workspace root itself, not a member folder"
    if "\0" in pattern:
        return "holds a NUL character"
    return ""


def _expand(root: Path, members: list[str], exclude: list[str]) -> list[Path]:
    excluded = {p.resolve() for pattern in exclude for p in root.glob(pattern)}
    found: set[Path] = set()
    for pattern in members:
        for path in root.glob(pattern):
            resolved = path.resolve()
            if resolved.is_dir() and (resolved / PYPROJECT).is_file() and resolved not in excluded:
                found.add(resolved)
    return sorted(found)
