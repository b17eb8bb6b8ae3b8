"""Source-backed extensions: which extension projects `eve build` builds before the agent.

Two kinds, treated alike (checked for freshness, rebuilt when stale, their output put
first on the path):
- members of the uv workspace that declare `[tool.eve.extension]`;
- distributions installed from a local path or editable (`pip install -e ../ext`,
  `uv add --editable ../ext`), found through the `direct_url.json` that installers write
  into their `.dist-info` (PEP 610), when that folder declares `[tool.eve.extension]`.

Only extensions the agent mounts are built: the mount files are read with `ast` (never
imported) for the modules they import, and so are the mount files inside a built
extension's subagents, so a nested mount's package is built too.
"""

from __future__ import annotations

import ast
import contextlib
import importlib.metadata
import json
import os
import sys
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import unquote, urlparse

from eve_build import slots
from eve_build.output.generate import SOURCE_PACKAGE
from eve_build.project.app import App
from eve_build.project.pyproject import PYPROJECT
from eve_build.project.roots import has_extension_table
from eve_build.userfile import read_user_text

DIRECT_URL = "direct_url.json"
_NOT_EXTENSIONS = frozenset({"__future__", "eve_build", *sys.stdlib_module_names})


def find_installed_sources() -> list[Path]:
    """Folders of extension projects installed from a local path or editable, sorted."""
    found: set[Path] = set()
    for dist in importlib.metadata.distributions():
        root = try_parse_direct_url(dist.read_text(DIRECT_URL))
        if root is not None and has_extension_table(root / PYPROJECT):
            found.add(root)
    return sorted(found)


def try_parse_direct_url(text: str | None) -> Path | None:
    """The local folder a PEP 610 `direct_url.json` points at (None for archives, VCS,
    remote URLs or an unreadable file)."""
    if not text:
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict) or "dir_info" not in data:
        return None
    url = urlparse(str(data.get("url", "")))
    if url.scheme != "file":
        return None
    path = Path(unquote(url.path))
    return path.resolve() if path.is_dir() else None


def find_agent_mount_files(app: App) -> list[Path]:
    """Every mount file of the agent and its own subagents (no discovery rules applied:
    a wrong one is reported by the compile)."""
    return _mount_files(app.agent_dir)


def find_nested_mount_files(package_dir: Path) -> list[Path]:
    """The mount files inside a built extension's subagents."""
    return _mount_files(package_dir / SOURCE_PACKAGE / slots.SUBAGENTS.directory)


def _mount_files(folder: Path) -> list[Path]:
    return find_mount_files(folder)


MAX_MOUNT_DEPTH = 100
"""How deep mount files are looked for (discovery's own bound: a deeper tree is its error)."""


def find_mount_files(folder: Path) -> list[Path]:
    """`extensions/*.py` and `extensions/*/extension.py` at any depth under `folder`,
    sorted; folder links are not followed. Iterative and bounded, so a tree nested
    thousands of folders deep is no RecursionError (discovery reports it)."""
    found: list[Path] = []
    pending = [(folder, 0)]
    while pending:
        directory, depth = pending.pop()
        try:
            with os.scandir(directory) as listing:
                folders = [Path(e.path) for e in listing
                           if e.name != "__pycache__" and e.is_dir(follow_symlinks=False)]
        except OSError:
            continue
        for child in folders:
            if child.name == slots.MOUNTS_DIRECTORY:
                found += _mounts_in(child)
            if depth < MAX_MOUNT_DEPTH:
                pending.append((child, depth + 1))
    return sorted(found)


def _mounts_in(folder: Path) -> list[Path]:
    mounts: list[Path] = []
    with contextlib.suppress(OSError), os.scandir(folder) as listing:
        for entry in listing:
            if entry.name.endswith(".py"):
                mounts.append(Path(entry.path))
            elif entry.name != "__pycache__" and entry.is_dir():
                module = Path(entry.path) / slots.EXTENSION_MODULE
                if module.exists() or module.is_symlink():
                    mounts.append(module)
    return mounts


def derive_imported_modules(files: Iterable[Path]) -> set[str]:
    """The top-level modules the files import that could be extensions (never imported)."""
    modules: set[str] = set()
    for path in files:
        try:
            tree = ast.parse(read_user_text(path, what="mount file"))
        except (OSError, UnicodeDecodeError, SyntaxError):
            continue  # the compile reports it
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                modules.add(node.module.split(".")[0])
            elif isinstance(node, ast.Import):
                modules.update(alias.name.split(".")[0] for alias in node.names)
    return modules - _NOT_EXTENSIONS
