"""The agent app's own pyproject.toml (not an extension's): read and checked here, once.

    data, problems = read_agent_pyproject(app.root)

`eve build` (and `eve info`, `eve add` before it installs anything) report the problems
and stop before anything is written; `eve serve` reads `[project] name` through it to
name the agent's state. The file is optional (a flat app may have none), and so is each
field; a field that is there must have its type: `name = 3` or `dependencies = "x"` is
an error at its line, as a TOML syntax error is at the line the parser stopped at.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from eve_build.diagnostics import Diagnostic, error
from eve_build.project.options import PYPROJECT, find_key_line
from eve_build.project.pyproject import read_pyproject, read_pyproject_text
from eve_build.project.values import derive_toml_kind, find_invalid_requirements, is_str_list

TEXT_FIELDS = {"name": 'name = "my-agent"', "version": 'version = "0.1.0"',
               "description": 'description = "What the agent does."',
               "requires-python": 'requires-python = ">=3.11"'}
"""`[project]` fields that are strings, with how one is written."""
NAME_CODES = ("name", "version")  # their problems have the code extensions' have


def read_agent_pyproject(app_root: Path, shown: str = PYPROJECT
                         ) -> tuple[dict[str, Any] | None, list[Diagnostic]]:
    """The parsed pyproject.toml of the agent app at `app_root` (None when it has none or
    it does not parse), and an error for each problem, about the file `shown`."""
    if not (app_root / PYPROJECT).exists():
        return None, []
    data, problems = read_pyproject(app_root)
    if data is None:  # not TOML, not text, not a regular file
        return None, [replace(p, file=shown) for p in problems]
    found = find_field_problems(data, read_pyproject_text(app_root))
    return data, [replace(p, file=shown) for p in found]


def find_field_problems(data: dict[str, Any], text: str) -> list[Diagnostic]:
    """An error for each `[project]` field of the wrong type, and each dependency that is
    no PEP 508 requirement."""
    project = data.get("project")
    if project is None:
        return []
    if not isinstance(project, dict):
        return [error("project/field-invalid", PYPROJECT,
                      f"`project` is {_a(project)}, not the `[project]` table",
                      'write it as a table: a `[project]` line, then `name = "my-agent"` '
                      "and the other fields below it", line=_find_top_level_line(text))]
    found: list[Diagnostic] = []
    for key, example in TEXT_FIELDS.items():
        value = project.get(key)
        if value is not None and not isinstance(value, str):
            found.append(error(
                "project/name-missing" if key in NAME_CODES else "project/field-invalid",
                PYPROJECT, f"`[project].{key}` is {_a(value)}, not a string",
                f"write it as a string, e.g. `{example}`",
                line=find_key_line(text, "project", key)))
    dependencies = project.get("dependencies")
    listed = dependencies is None or is_str_list(dependencies)
    if not listed:
        found.append(error(
            "project/field-invalid", PYPROJECT,
            f"`[project].dependencies` is {_describe_list(dependencies)}, not a list of "
            "requirement strings", 'write it as a list, e.g. `dependencies = ["eve-build"]`',
            line=find_key_line(text, "project", "dependencies")))
    optional = project.get("optional-dependencies")
    grouped = optional is None or (isinstance(optional, dict)
                                   and all(is_str_list(g) for g in optional.values()))
    if not grouped:
        found.append(error(
            "project/field-invalid", PYPROJECT,
            "`[project].optional-dependencies` is not a table of lists of requirement strings",
            'write each group as a list, e.g. `dev = ["pytest"]` under '
            "`[project.optional-dependencies]`",
            line=find_key_line(text, "project", "optional-dependencies")))
    if listed and grouped:
        found.extend(find_invalid_requirements(project, text))
    return found


def _describe_list(value: Any) -> str:
    if isinstance(value, list):
        odd = next(item for item in value if not isinstance(item, str))
        return f"an array holding {_a(odd)}"
    return _a(value)


def _a(value: Any) -> str:
    """`an integer`, `a string`: the TOML type of `value` with its article."""
    kind = "string" if isinstance(value, str) else derive_toml_kind(value)
    return f"{'an' if kind[0] in 'aeiou' else 'a'} {kind}"


def _find_top_level_line(text: str) -> int | None:
    """The line of `project = ...` before any table header."""
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if line.startswith("["):
            return None
        if line.split("=", 1)[0].strip().strip('"') == "project":
            return number
    return None
