"""Find the project a command runs in, upward from the working folder, like git.

`eve extension build` (and `pack`) run in the nearest folder at or above the one given
whose pyproject.toml has `[tool.eve.extension]`; the agent's root is found by
`eve_build.project.app.try_find_app_root`.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from eve_build.project.pyproject import PYPROJECT
from eve_build.userfile import read_user_text


def locate_extension_root(start: Path) -> Path:
    """The nearest folder at or above `start` declaring `[tool.eve.extension]`, else `start`
    (whose missing or unreadable pyproject.toml the build then reports)."""
    start = start.resolve()
    if (start / PYPROJECT).is_file():
        return start  # a pyproject here is the project, even a wrong one: report it here
    for folder in start.parents:
        if has_extension_table(folder / PYPROJECT):
            return folder
    return start


def has_extension_table(path: Path) -> bool:
    try:
        data = tomllib.loads(read_user_text(path, what="pyproject"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):
        return False
    tool = data.get("tool")
    eve = tool.get("eve") if isinstance(tool, dict) else None
    return isinstance(eve, dict) and isinstance(eve.get("extension"), dict)
