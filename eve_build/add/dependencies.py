"""Add a dependency to the agent's pyproject.toml with tomlkit, keeping its formatting.

Only the dependency line (and, for a uv path source, its `[tool.uv.sources]` entry)
is added: comments, order, quoting and blank lines elsewhere stay byte for byte. A
dependency on the same distribution that is already listed is left as it is.
"""

from __future__ import annotations

from typing import Any

import tomlkit
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from tomlkit.items import Array, Table


class DependenciesNotListError(ValueError):
    """`[project].dependencies` exists but is not an array: it is not replaced."""


def derive_pyproject_text(text: str, requirement: str, *,
                          uv_source: dict[str, Any] | None = None) -> str:
    """`text` with `requirement` in `[project].dependencies` (and `uv_source` under
    `[tool.uv.sources]`); raises tomlkit's ParseError for invalid TOML and
    DependenciesNotListError when `[project].dependencies` is there but no array."""
    document = tomlkit.parse(text)
    name = canonicalize_name(Requirement(requirement).name)
    project = document.get("project")
    if project is not None and not isinstance(project, Table):
        raise DependenciesNotListError(
            f"`project` is a {type(project.unwrap()).__name__}, not the `[project]` table: "
            "adding a dependency would replace it")
    if not isinstance(project, Table):
        project = tomlkit.table()
        document["project"] = project
    dependencies = project.get("dependencies")
    if dependencies is not None and not isinstance(dependencies, Array):
        raise DependenciesNotListError(
            f"`[project].dependencies` is a {type(dependencies.unwrap()).__name__}, not a list "
            "of requirements: adding to it would drop what it holds")
    if dependencies is None:
        dependencies = tomlkit.array()
        project["dependencies"] = dependencies
    if not any(_names(item) == name for item in dependencies):
        if "\n" in dependencies.as_string():
            dependencies.add_line(requirement, indent=_indent(dependencies))
        else:
            dependencies.append(requirement)
    if uv_source is not None:
        tool = document.setdefault("tool", tomlkit.table(is_super_table=True))
        uv = tool.setdefault("uv", tomlkit.table(is_super_table=True))
        sources = uv.setdefault("sources", tomlkit.table())
        if name not in {canonicalize_name(str(k)) for k in sources}:
            inline = tomlkit.inline_table()
            inline.update(uv_source)
            sources[name] = inline
    return tomlkit.dumps(document)


def _names(item: object) -> str | None:
    try:
        return canonicalize_name(Requirement(str(item)).name)
    except InvalidRequirement:
        return None


def _indent(array: Array) -> str:
    for line in array.as_string().splitlines()[1:]:
        stripped = line.lstrip()
        if stripped.startswith(('"', "'")):
            return line[: len(line) - len(stripped)]
    return "    "
