"""Values of `[project]` checked beyond their TOML type: requirements, names, kinds.

- every `[project].dependencies` (and optional group) entry must parse as a PEP 508
  requirement (`not a req !!` would fail `pip install` of every wheel, far from here);
- `RESERVED_IMPORTS`: import names an extension must not take although
  `sys.stdlib_module_names` leaves them out (`test` is the standard library's own
  test package) or every environment has them (the installers and build tools);
- `derive_toml_kind` names a value's TOML type for messages (`version = 1.0` is a
  float, not a missing version).
"""

from __future__ import annotations

from typing import Any

from packaging.utils import canonicalize_name

from eve_build.diagnostics import Diagnostic, error
from eve_build.project.options import PYPROJECT, find_key_line

RESERVED_IMPORTS = frozenset({
    "test", "idlelib", "ensurepip", "lib2to3", "site", "sitecustomize", "usercustomize",
    "pip", "setuptools", "pkg_resources", "wheel", "build", "twine", "virtualenv",
    "tomlkit", "cronsim", "starlette", "uvicorn", "httpx", "anyio", "mcp", "pytest",
})
"""Shadowing these breaks the interpreter, the installers or eve-build's own extras."""

_KINDS = ((bool, "boolean"), (int, "integer"), (float, "float"), (list, "array"),
          (dict, "table"))


def is_str_list(value: object) -> bool:
    """A TOML array of strings (what dependency lists and workspace members are)."""
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def derive_toml_kind(value: Any) -> str:
    """`float` for `1.0`, `array` for `[...]`: the TOML type a value was written as."""
    for kind, name in _KINDS:
        if isinstance(value, kind):
            return name
    return type(value).__name__


def derive_all_dependencies(project: dict[str, Any]) -> list[str]:
    """Every dependency string of `[project]`, optional groups included."""
    listed = project.get("dependencies", [])
    deps = [d for d in listed if isinstance(d, str)] if isinstance(listed, list) else []
    optional = project.get("optional-dependencies", {})
    if isinstance(optional, dict):
        for group in optional.values():
            if isinstance(group, list):
                deps.extend(d for d in group if isinstance(d, str))
    return deps


def find_invalid_requirements(project: dict[str, Any], text: str) -> list[Diagnostic]:
    """An error for each dependency string that is not a PEP 508 requirement."""
    from packaging.requirements import InvalidRequirement, Requirement  # only when checked

    listed: list[tuple[str, str]] = [("dependencies", d) for d in project.get("dependencies", [])]
    optional = project.get("optional-dependencies", {})
    if isinstance(optional, dict):
        listed += [(f"optional-dependencies.{group}", d) for group, items in optional.items()
                   if isinstance(items, list) for d in items if isinstance(d, str)]
    found = []
    for key, requirement in listed:
        try:
            Requirement(requirement)
        except InvalidRequirement as exc:
            shown = requirement if len(requirement) <= 80 else f"{requirement[:77]}..."
            found.append(error(
                "project/dependency-invalid", PYPROJECT,
                f"`[project].{key}` entry `{shown}` is not a PEP 508 requirement: "
                f"{str(exc).splitlines()[0][:200]}",
                'write it as a package name with an optional version, e.g. `"httpx>=0.27"`',
                line=find_key_line(text, "project", key.split(".")[0])))
    return found


def find_undeclared_externals(
    externals: list[str], dependencies: list[str], line: int | None = None
) -> list[Diagnostic]:
    """External dependencies must also be (optional) dependencies of the package."""
    if not externals:
        return []
    from packaging.requirements import InvalidRequirement, Requirement  # only when needed

    declared = set()
    for dep in dependencies:
        try:
            declared.add(canonicalize_name(Requirement(dep).name))
        except InvalidRequirement:
            continue
    return [
        error(
            "project/external-dependency-undeclared", PYPROJECT,
            f"`{name}` is listed in `tool.eve.extension.external-dependencies` but is not a "
            "dependency of the package",
            f'add "{name}" to `[project].dependencies` (or an optional-dependencies group)',
            line=line,
        )
        for name in sorted(externals)
        if canonicalize_name(name) not in declared
    ]
