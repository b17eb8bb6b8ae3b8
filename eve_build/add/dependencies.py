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


def derive_pyproject_text(text: str, requirement: str, *,
                          uv_source: dict[str, Any] | None = None) -> str:
    """`text` with `requirement` in `[project].dependencies` (and `uv_source` under
    `[tool.uv.sources]`); raises tomlkit's ParseError for invalid TOML."""
    document = tomlkit.parse(text)
    name = canonicalize_name(Requirement(requirement).name)
    project = document.get("project")
    if not isinstance(project, Table):
        project = tomlkit.table()
        document["project"] = project
    dependencies = project.get("dependencies")
    if not isinstance(dependencies, Array):
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
