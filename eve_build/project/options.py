"""The options of `[tool.eve.extension]`: which keys exist, and where the output may go."""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any

from eve_build.diagnostics import Diagnostic, error

PYPROJECT = "pyproject.toml"
DEFAULT_OUTPUT = "build/eve"
KNOWN_OPTIONS = ("source", "output", "external-dependencies", "import-timeout")
"""The keys `[tool.eve.extension]` takes; any other is a typo or from a newer eve-build."""
RESERVED_OUTPUTS = ("dist", "tests", PYPROJECT)
"""Folders that belong to wheels, tests or sources: a build must never replace them."""


def find_unknown_options(table: dict[str, Any], text: str) -> list[Diagnostic]:
    """Keys of `[tool.eve.extension]` eve-build does not know, with a did-you-mean."""
    found = []
    for key in sorted(str(k) for k in table if k not in KNOWN_OPTIONS):
        close = difflib.get_close_matches(key, KNOWN_OPTIONS, n=1)
        hint = (f"did you mean `{close[0]}`?" if close else
                f"the options are {', '.join(f'`{k}`' for k in KNOWN_OPTIONS)}")
        found.append(error("project/option-unknown", PYPROJECT,
                           f"`tool.eve.extension` has an unknown option `{key[:80]}`", hint,
                           line=find_key_line(text, "tool.eve.extension", key)))
    return found


def find_output_overlap(source: str, output: str, line: int | None) -> list[Diagnostic]:
    """The output folder is replaced whole on each build: it must not hold the package."""
    out, src = Path(output), Path(source)
    if out.parts and out.parts[0] in RESERVED_OUTPUTS:
        return [error(
            "project/option-invalid", PYPROJECT,
            f"`tool.eve.extension.output` `{output}` is a folder that belongs to wheels, tests "
            "or sources; each build replaces the output folder whole",
            f'use a folder of its own, such as `output = "{DEFAULT_OUTPUT}"`', line=line,
        )]
    if out == Path() or out == src or src.is_relative_to(out) or out.is_relative_to(src):
        return [error(
            "project/option-invalid", PYPROJECT,
            f"`tool.eve.extension.output` `{output}` overlaps the package or its source "
            f"`{source}`; each build replaces the output folder whole",
            f'use a folder of its own, such as `output = "{DEFAULT_OUTPUT}"`', line=line,
        )]
    return []


def find_key_line(text: str, table: str, key: str) -> int | None:
    """The line of `key = ...` inside `[table]` of a TOML text (1-based), if found."""
    inside = False
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if line.startswith("["):
            inside = line.strip("[] ") == table
        elif inside and line.split("=", 1)[0].strip().strip('"') == key:
            return number
    return None
