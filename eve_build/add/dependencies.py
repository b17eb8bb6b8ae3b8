"""Add a dependency to the agent's pyproject.toml with tomlkit, keeping its formatting.

Only the dependency line (and, for a uv path source, its `[tool.uv.sources]` entry)
is added: comments, order, quoting and blank lines elsewhere stay byte for byte. A
dependency on the same distribution that is already listed is left as it is, unless
one of the two is a direct reference (`acme-crm @ file:///...whl`) and they differ: then
the entry (and its uv source) is replaced in place, since the environment now has the
new one.
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
    odd = next((item for item in dependencies or () if not isinstance(item, str)), None)
    if odd is not None:
        raise DependenciesNotListError(
            f"`[project].dependencies` holds `{tomlkit.item(odd).as_string()[:40]}` "
            f"({type(odd.unwrap() if hasattr(odd, 'unwrap') else odd).__name__}), not a "
            "requirement string: adding to it would keep a list no installer reads")
    if dependencies is None:
        dependencies = tomlkit.array()
        project["dependencies"] = dependencies
    listed = next((i for i, item in enumerate(dependencies) if _names(item) == name), None)
    if listed is None:
        if "\n" in dependencies.as_string():
            dependencies.add_line(requirement, indent=_indent(dependencies))
        else:
            dependencies.append(requirement)
    elif _is_new_source(str(dependencies[listed]), requirement):
        dependencies[listed] = requirement  # installed from elsewhere now: say so
    if uv_source is not None:
        tool = document.setdefault("tool", tomlkit.table(is_super_table=True))
        uv = tool.setdefault("uv", tomlkit.table(is_super_table=True))
        sources = uv.setdefault("sources", tomlkit.table())
        key = next((k for k in sources if canonicalize_name(str(k)) == name), name)
        if sources.get(key) != uv_source:
            inline = tomlkit.inline_table()
            inline.update(uv_source)
            sources[key] = inline
    return tomlkit.dumps(document)


def _is_new_source(listed: str, requirement: str) -> bool:
    """Does `requirement` name another origin than `listed` (`acme @ file:///x.whl` ->
    `acme @ file:///src`)? Version ranges of two index requirements are the user's."""
    try:
        old, new = Requirement(listed), Requirement(requirement)
    except InvalidRequirement:
        return False
    return (old.url or new.url) is not None and old.url != new.url


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
