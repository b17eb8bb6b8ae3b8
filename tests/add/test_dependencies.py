"""`eve add` edits pyproject.toml with tomlkit: only the changed line differs."""

from __future__ import annotations

import difflib
import tomllib

from eve_build.add.dependencies import derive_pyproject_text

MULTILINE = '''\
# The support agent.   (a comment that must survive)
[project]
name    = "support-agent"     # odd spacing kept
version = '0.1.0'
dependencies = [
  "eve-build",          # the toolchain
  'gizmo >= 1.0',
]

[tool.eve]   # trailing comment

[tool.other]
keys = { a = 1,   b = 2 }
'''


def _changed_lines(before: str, after: str) -> list[str]:
    return [line for line in difflib.ndiff(before.splitlines(), after.splitlines())
            if line.startswith(("+ ", "- "))]


def test_a_multiline_list_gets_one_new_line_in_its_indentation() -> None:
    after = derive_pyproject_text(MULTILINE, "acme-crm @ file:///wheels/acme.whl")
    assert _changed_lines(MULTILINE, after) == ['+   "acme-crm @ file:///wheels/acme.whl",']
    assert tomllib.loads(after)["project"]["dependencies"][-1] == \
        "acme-crm @ file:///wheels/acme.whl"


def test_an_inline_list_changes_only_its_own_line() -> None:
    before = MULTILINE.replace('dependencies = [\n  "eve-build",          # the toolchain\n'
                               "  'gizmo >= 1.0',\n]", 'dependencies = ["eve-build"]')
    after = derive_pyproject_text(before, "acme-crm")
    assert _changed_lines(before, after) == ['- dependencies = ["eve-build"]',
                                             '+ dependencies = ["eve-build", "acme-crm"]']


def test_a_dependency_already_listed_is_left_alone() -> None:
    assert derive_pyproject_text(MULTILINE, "gizmo==2.0") == MULTILINE


def test_a_uv_path_source_is_added_under_tool_uv_sources() -> None:
    after = derive_pyproject_text(MULTILINE, "acme-crm",
                                  uv_source={"path": "../acme-crm", "editable": True})
    data = tomllib.loads(after)
    assert data["tool"]["uv"]["sources"]["acme-crm"] == {"path": "../acme-crm",
                                                         "editable": True}
    assert after.startswith(MULTILINE.split("[tool.eve]")[0].replace(
        "  'gizmo >= 1.0',\n", "  'gizmo >= 1.0',\n  \"acme-crm\",\n"))


def test_a_new_source_replaces_the_listed_one_in_place() -> None:
    before = MULTILINE.replace("'gizmo >= 1.0',", '"gizmo @ file:///dist/gizmo-1.0-py3-none-any.whl",'
                                                  "  # from the wheel")
    after = derive_pyproject_text(before, "gizmo @ file:///src/gizmo")
    assert _changed_lines(before, after) == [
        '-   "gizmo @ file:///dist/gizmo-1.0-py3-none-any.whl",  # from the wheel',
        '+   "gizmo @ file:///src/gizmo",  # from the wheel']
    uv = derive_pyproject_text(before + '\n[tool.uv.sources]\ngizmo = { path = "old" }\n', "gizmo",
                               uv_source={"path": "../gizmo", "editable": True})
    assert tomllib.loads(uv)["tool"]["uv"]["sources"]["gizmo"] == {
        "path": "../gizmo", "editable": True}
    assert tomllib.loads(uv)["project"]["dependencies"][1] == "gizmo"
