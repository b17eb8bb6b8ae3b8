"""`[project]` and `[tool.eve.extension]` of an extension package."""

from __future__ import annotations

import keyword
import re
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

from eve_build.diagnostics import Diagnostic, error, locate_toml_error
from eve_build.naming import ImportName, derive_import_name
from eve_build.project.budget import parse_import_timeout
from eve_build.project.options import DEFAULT_OUTPUT as DEFAULT_OUTPUT
from eve_build.project.options import PYPROJECT as PYPROJECT
from eve_build.project.options import find_key_line as find_key_line
from eve_build.project.options import find_output_overlap, find_unknown_options
from eve_build.project.values import (
    RESERVED_IMPORTS,
    derive_all_dependencies,
    derive_toml_kind,
    find_invalid_requirements,
    find_undeclared_externals,
    is_str_list,
)
from eve_build.userfile import read_user_text

DEFAULT_SOURCE = "extension"


@dataclass(frozen=True)
class ExtensionProject:
    """An extension package as its pyproject.toml declares it."""

    root: Path
    name: str
    version: str
    import_name: ImportName
    source: str
    output: str
    external_dependencies: tuple[str, ...]
    dependencies: tuple[str, ...]
    import_timeout: float = 30.0  # seconds per imported module (engine.budget)

    @property
    def source_dir(self) -> Path:
        return self.root / self.source

    @property
    def output_dir(self) -> Path:
        return self.root / self.output


def read_pyproject(root: Path) -> tuple[dict[str, Any] | None, list[Diagnostic]]:
    path = root / PYPROJECT
    if not path.exists():
        return None, [
            error(
                "project/pyproject-missing", PYPROJECT, f"no `{PYPROJECT}` in `{root}`",
                "run `eve extension build` in the package root, or pass `--path DIR`",
            )
        ]
    text: str | None = None
    try:
        text = read_user_text(path, what="pyproject")
        return tomllib.loads(text), []
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        return None, [
            error("project/pyproject-invalid", PYPROJECT, f"not valid TOML: {exc}",
                  "fix the TOML syntax", line=locate_toml_error(exc, text))
        ]
    except RecursionError:
        return None, [error("project/pyproject-invalid", PYPROJECT,
                            "not readable: its values are nested too deeply",
                            "nest arrays and inline tables less deeply")]
    except OSError as exc:
        return None, [error("project/pyproject-invalid", PYPROJECT,
                            f"cannot be read: {exc.strerror or type(exc).__name__}",
                            "check the file's permissions")]


def parse_extension_project(root: Path, data: dict[str, Any]) -> tuple[
    ExtensionProject | None, list[Diagnostic]
]:
    """Validate the tables an extension build needs; every problem is reported."""
    found: list[Diagnostic] = []
    text = read_pyproject_text(root)
    project = data.get("project") if isinstance(data.get("project"), dict) else {}
    assert isinstance(project, dict)
    name = project.get("name")
    version = project.get("version")
    if name is not None and not isinstance(name, str):
        found.append(error("project/name-missing", PYPROJECT,
                           f"`[project].name` is a {derive_toml_kind(name)}, not a string",
                           'write it as a string, e.g. `name = "acme-crm"`',
                           line=find_key_line(text, "project", "name")))
        name = None
    elif not isinstance(name, str) or not name:
        found.append(error("project/name-missing", PYPROJECT, "`[project].name` is missing",
                           'add `name = "my-extension"` under `[project]`'))
    else:
        found.extend(
            error("project/name-invalid", PYPROJECT, f"`[project].name` `{name}` {problem}",
                  f'give the package a name of its own, e.g. `name = "{name}-extension"`'
                  if "shadow" in problem else
                  'use letters, digits and `-`, starting with a letter, e.g. `name = "acme-crm"`',
                  line=find_key_line(text, "project", "name"))
            for problem in find_distribution_name_problems(name)
        )
        name = name if not find_distribution_name_problems(name) else None
    dynamic = project.get("dynamic")
    if version is None and isinstance(dynamic, list) and "version" in dynamic:
        found.append(error(
            "project/version-dynamic", PYPROJECT,
            '`[project].version` is dynamic (`dynamic = ["version"]`), but the manifest of an '
            "eve extension records its version when `eve extension build` runs, before any "
            "build backend or VCS plugin computes it",
            'write the version itself: `version = "0.1.0"` under `[project]`, and drop '
            '"version" from `dynamic`', line=find_key_line(text, "project", "dynamic")))
    elif version is not None and not isinstance(version, str):
        found.append(error("project/name-missing", PYPROJECT,
                           f"`[project].version` is a {derive_toml_kind(version)}, not a string",
                           f'quote it: `version = "{version}"` (a TOML number '
                           "loses trailing zeros and is no PEP 440 version)"
                           if isinstance(version, int | float) and not isinstance(version, bool)
                           else 'write it as a string, e.g. `version = "0.1.0"`',
                           line=find_key_line(text, "project", "version")))
    elif not isinstance(version, str):
        found.append(error("project/name-missing", PYPROJECT, "`[project].version` is missing",
                           'add `version = "0.1.0"` under `[project]` (eve needs a static '
                           "version for the manifest)"))
    else:
        try:
            normal = str(Version(version))
        except InvalidVersion:
            found.append(error("project/name-missing", PYPROJECT,
                               f"`[project].version` `{version}` is not a PEP 440 version",
                               'use a version such as "0.1.0"'))
        else:
            if normal != version:  # the wheel would say `normal`, the manifest `version`
                found.append(error(
                    "project/version-unnormalized", PYPROJECT,
                    f"`[project].version` `{version}` is not in its normal form `{normal}`; "
                    "wheels and the manifest must agree on it",
                    f'write `version = "{normal}"`', line=find_key_line(text, "project",
                                                                         "version")))
    tool = data.get("tool", {})
    eve = tool.get("eve", {}) if isinstance(tool, dict) else {}
    table = eve.get("extension") if isinstance(eve, dict) else None
    if not isinstance(table, dict):
        found.append(error(
            "project/eve-table-missing", PYPROJECT,
            "this package is not an eve extension: `[tool.eve.extension]` is missing",
            'add `[tool.eve.extension]` with `source = "extension"` to pyproject.toml, '
            "or run `eve build` for an agent app",
        ))
        return None, found
    found.extend(find_unknown_options(table, text))
    source = _read_str(table, "source", DEFAULT_SOURCE, found)
    output = _read_str(table, "output", DEFAULT_OUTPUT, found)
    externals = table.get("external-dependencies", [])
    if not isinstance(externals, list) or not all(isinstance(x, str) for x in externals):
        found.append(error("project/option-invalid", PYPROJECT,
                           "`tool.eve.extension.external-dependencies` must be a list of strings",
                           'write it as `external-dependencies = ["grpcio"]`'))
        externals = []
    found.extend(find_output_overlap(source, output,
                                     find_key_line(text, "tool.eve.extension", "output")))
    dependencies = derive_all_dependencies(project)
    import_timeout, problems = parse_import_timeout(
        table, line=find_key_line(text, "tool.eve.extension", "import-timeout"))
    found.extend(problems)
    if not is_str_list(project.get("dependencies", [])):
        found.append(error("project/option-invalid", PYPROJECT,
                           "`[project].dependencies` must be a list of requirement strings",
                           'write it as `dependencies = ["eve-build", "pydantic>=2"]`',
                           line=find_key_line(text, "project", "dependencies")))
    else:
        found.extend(find_invalid_requirements(project, text))
    if not (root / source).is_dir():
        found.append(error(
            "project/source-missing", PYPROJECT,
            f"the source folder `{source}` named by `tool.eve.extension.source` does not exist",
            f"create `{source}/extension.py`, or point `source` at the folder that holds it",
            line=find_key_line(text, "tool.eve.extension", "source"),
        ))
    found.extend(find_undeclared_externals(
        externals, dependencies, find_key_line(text, "tool.eve.extension", "external-dependencies")
    ))
    if found or not isinstance(name, str) or not isinstance(version, str):
        return None, found
    return ExtensionProject(
        root=root, name=name, version=version, import_name=derive_import_name(name),
        source=source, output=output, external_dependencies=tuple(sorted(externals)),
        dependencies=tuple(dependencies), import_timeout=import_timeout,
    ), []


DISTRIBUTION_NAME = re.compile(r"^([a-z0-9]|[a-z0-9][a-z0-9._-]*[a-z0-9])$", re.IGNORECASE)


SHADOWED_IMPORTS = frozenset({
    "eve_build", "typer", "pydantic", "pydantic_core", "jinja2", "tomli_w", "packaging",
    "hatchling", "editables", "watchfiles", "yaml", "markupsafe", "annotated_types",
    "typing_extensions", "click", "rich",
})
"""eve-build itself and the packages it imports: an extension must not replace them."""


def find_distribution_name_problems(name: str) -> list[str]:
    """Why `name` cannot name an extension package (its import name must be importable)."""
    if not DISTRIBUTION_NAME.match(name):
        return ["is not a valid distribution name (PEP 508)"]
    import_name = derive_import_name(name)
    if not import_name.isidentifier() or keyword.iskeyword(import_name):
        return [f"gives the import name `{import_name}`, which is not a Python identifier"]
    if import_name in sys.stdlib_module_names or import_name in RESERVED_IMPORTS:
        return [f"gives the import name `{import_name}`, which would shadow the standard "
                "library"]
    if import_name in SHADOWED_IMPORTS:
        return [f"gives the import name `{import_name}`, which would shadow eve-build or a "
                "package it depends on"]
    return []


def read_pyproject_text(root: Path) -> str:
    """The text of `root`'s pyproject.toml for finding lines; empty when unreadable."""
    try:
        return read_user_text(root / PYPROJECT, what="pyproject")
    except (OSError, UnicodeDecodeError):
        return ""


def _read_str(table: dict[str, Any], key: str, default: str, found: list[Diagnostic]) -> str:
    value = table.get(key, default)
    if isinstance(value, str) and value.startswith("~"):
        found.append(error("project/option-invalid", PYPROJECT,
                           f"`tool.eve.extension.{key}` `{value[:80]}` starts with `~`, which is "
                           "not expanded: it would be a folder named `~` inside the package",
                           f'use a folder relative to the package, e.g. `{key} = "{default}"`'))
        return default
    if not isinstance(value, str) or not value or Path(value).is_absolute() or ".." in Path(
        value
    ).parts:
        found.append(error("project/option-invalid", PYPROJECT,
                           f"`tool.eve.extension.{key}` must be a relative folder inside the "
                           "package", f'write it as `{key} = "{default}"`'))
        return default
    return value
