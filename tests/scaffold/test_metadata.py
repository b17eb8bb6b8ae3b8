"""The scaffold's pyproject.toml from data (tomli-w), its README options table from the
config model, and `eve extension init` inside a uv workspace (tomlkit edits)."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from eve_build.scaffold import init_extension
from eve_build.scaffold.metadata import Author, derive_pyproject, derive_runtime_requirement
from eve_build.scaffold.options import derive_options_table
from tests.scaffold.helpers import FakeRunner


def test_the_pyproject_escapes_what_it_is_given() -> None:
    odd = Author('Ada "The Countess" \\ Lovelace', "ada@example.com")
    data = tomllib.loads(derive_pyproject("acme-crm", "0.1.0", [odd]))

    assert data["project"]["authors"] == [{"name": 'Ada "The Countess" \\ Lovelace',
                                           "email": "ada@example.com"}]


def test_the_pyproject_carries_complete_metadata() -> None:
    data = tomllib.loads(derive_pyproject("acme-crm", "0.1.0"))
    project = data["project"]

    assert data["build-system"]["requires"] == ["hatchling", "eve-build==0.1.0"]
    assert project["license"] == "MIT"
    assert project["dependencies"] == ["eve-build>=0.1,<1", "pydantic>=2"]
    # the frontend: `python -m build` would run the `build/` output folder without it
    assert project["optional-dependencies"]["test"] == ["pytest>=8", "build>=1.2"]
    assert project["optional-dependencies"]["dev"] == ["acme-crm[test]", "build>=1.2",
                                                       "twine>=5"]
    assert set(project["urls"]) == {"Homepage", "Source", "Issues"}
    assert "authors" not in project  # no git identity: nothing invented
    assert data["tool"]["eve"]["extension"] == {"source": "extension", "output": "build/eve"}
    # the manifest's dist-info copy is a duplicate on purpose (docs/publishing.md)
    assert data["tool"]["check-wheel-contents"] == {"ignore": ["W002"]}


@pytest.mark.parametrize(("version", "requirement"), [
    ("0.1.0", "eve-build>=0.1,<1"), ("1.4.2", "eve-build>=1.4,<2"),
    ("2.0.0rc1", "eve-build>=2.0,<3"),
])
def test_the_runtime_requirement_allows_compatible_releases(version: str,
                                                            requirement: str) -> None:
    assert derive_runtime_requirement(version) == requirement


def test_the_options_table_comes_from_the_config_schema() -> None:
    schema = {"properties": {"key": {"type": "string", "description": "The | key."},
                             "units": {"enum": ["metric", "imperial"], "default": "metric"},
                             "tags": {"type": "array", "items": {"type": "string"},
                                      "default": []}},
              "required": ["key"]}

    assert derive_options_table(schema).splitlines() == [
        "| Option  | Type                    | Default    | Meaning     |",
        "|---------|-------------------------|------------|-------------|",
        "| `key`   | `str`                   | required   | The \\| key. |",
        '| `units` | `"metric" | "imperial"` | `"metric"` |             |',
        "| `tags`  | `list[str]`             | `[]`       |             |",
    ]
    assert derive_options_table(None) == "This extension takes no options.\n"


def test_the_readme_table_matches_the_built_config(tmp_path: Path) -> None:
    result = init_extension("demo", tmp_path / "demo", install=False, git=False)
    manifest = json.loads((result.target / "build/eve/demo/extension/_manifest.json").read_text())

    assert derive_options_table(manifest["config"]) in (result.target / "README.md").read_text()


WORKSPACE = """\
# the team's workspace
[project]
name = "team"
version = "0.1.0"

[tool.uv.workspace]
members = ["agents/*"]  # agents live here
"""


def test_init_in_a_workspace_becomes_a_member(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(WORKSPACE)
    runner = FakeRunner()

    result = init_extension("acme-notes", tmp_path / "packages" / "acme-notes", runner=runner,
                            git=True, install=True)

    text = (tmp_path / "pyproject.toml").read_text()
    assert text.startswith(WORKSPACE.split("[tool.uv.workspace]")[0])  # kept as it was
    assert "# agents live here" in text
    data = tomllib.loads(text)
    assert data["tool"]["uv"]["workspace"]["members"] == ["agents/*", "packages/acme-notes"]
    assert data["tool"]["uv"]["sources"] == {"acme-notes": {"workspace": True}}
    assert ["git", "init", "-q"] not in runner.argvs  # no nested repository
    assert not (result.target / ".git").exists()
    assert not any("venv" in argv for argv in runner.argvs)  # no own environment
    assert not (result.target / ".venv").exists()
    assert ".github/workflows/ci.yml" not in result.files
    assert result.next_steps[-3:] == [
        "uv sync --all-packages", "uv run --package acme-notes --extra test pytest",
        "uv run --package acme-notes eve extension build --path packages/acme-notes"]
    readme = (result.target / "README.md").read_text()
    assert "$ uv run --package acme-notes --extra test pytest\n" in readme
    assert ".venv" not in readme  # a member has no environment of its own
    assert "--path packages/acme-notes" in (result.target / "AGENTS.md").read_text()


def test_a_member_already_covered_by_a_pattern_is_not_added_twice(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(WORKSPACE.replace('"agents/*"', '"packages/*"'))

    init_extension("acme-notes", tmp_path / "packages" / "acme-notes", install=False, git=False)
    init_extension("acme-notes", tmp_path / "packages" / "acme-notes", install=False, git=False,
                   force=True)

    data = tomllib.loads((tmp_path / "pyproject.toml").read_text())
    assert data["tool"]["uv"]["workspace"]["members"] == ["packages/*"]
    assert data["tool"]["uv"]["sources"] == {"acme-notes": {"workspace": True}}
