"""Classes 2 and 5 at `eve extension build`: odd trees, odd text, odd pyproject tables."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from eve_build.cli import app
from eve_build.errors import DiagnosticsError
from eve_build.extension.build import build_extension
from eve_build.source.walk import MAX_DEPTH

Copy = Callable[[str], Path]


def _codes_and_messages(root: Path) -> list[tuple[str, str, str]]:
    with pytest.raises(DiagnosticsError) as caught:
        build_extension(root)
    return [(d.code, d.file, d.message) for d in caught.value.diagnostics]


def test_a_self_referencing_symlink_is_skipped_with_a_warning(copy_fixture: Copy) -> None:
    root = copy_fixture("extensions/gizmo")
    (root / "extension" / "tools" / "loop.py").symlink_to("loop.py")
    result = build_extension(root)
    assert [(d.code, d.file) for d in result.warnings] == [
        ("discover/symlink-broken", "extension/tools/loop.py")]
    assert "loops" in result.warnings[0].message


def test_a_folder_link_to_its_own_ancestor_is_not_walked_forever(copy_fixture: Copy) -> None:
    root = copy_fixture("extensions/gizmo")
    (root / "extension" / "lib").symlink_to("..")
    result = build_extension(root)
    assert [(d.code, d.file) for d in result.warnings] == [
        ("discover/symlink-broken", "extension/lib")]


def test_a_dangling_symlink_is_reported_not_ignored(copy_fixture: Copy) -> None:
    root = copy_fixture("extensions/gizmo")
    (root / "extension" / "tools" / "ghost.py").symlink_to("missing.py")
    result = build_extension(root)
    assert [(d.code, d.message) for d in result.warnings] == [(
        "discover/symlink-broken", "`extension/tools/ghost.py` is a symlink to `missing.py`, "
        "which does not exist; it is skipped")]


def test_a_folder_tree_deeper_than_the_limit_is_one_error(copy_fixture: Copy) -> None:
    root = copy_fixture("extensions/gizmo")
    deep = root / "extension" / "lib" / "/".join(["d"] * (MAX_DEPTH + 20))
    deep.mkdir(parents=True)
    (deep / "x.py").write_text("X = 1\n")
    found = _codes_and_messages(root)
    assert [code for code, _, _ in found] == ["discover/tree-too-deep"]


@pytest.mark.parametrize(("data", "message"), [
    ("Sei h\u00f6flich.\n".encode("latin-1"), "the file is not UTF-8 text (byte 5 is 0xf6)"),
    (b"\xef\xbb\xbfBe kind.\n", "the file starts with a byte order mark (BOM), which agents "
     "would read as text"),
], ids=["latin-1", "bom"])
def test_instructions_must_be_plain_utf8_at_extension_build(
        copy_fixture: Copy, data: bytes, message: str) -> None:
    root = copy_fixture("extensions/gizmo")
    (root / "extension" / "instructions.md").write_bytes(data)
    assert _codes_and_messages(root) == [
        ("source/text-invalid", "extension/instructions.md", message)]


def test_skills_must_be_plain_utf8_and_describe_themselves_in_text(copy_fixture: Copy) -> None:
    root = copy_fixture("extensions/gizmo")
    skills = root / "extension" / "skills"
    (skills / "triage").mkdir(parents=True)
    (skills / "triage" / "SKILL.md").write_text("---\ndescription: [1, 2]\n---\nSteps.\n")
    (skills / "summarize.md").write_bytes(b"\xef\xbb\xbf---\ndescription: x\n---\n")
    assert _codes_and_messages(root) == [
        ("source/text-invalid", "extension/skills/summarize.md",
         "the file starts with a byte order mark (BOM), which agents would read as text"),
        ("skill/description-invalid", "extension/skills/triage/SKILL.md",
         "the `description` of the skill `triage` is a list, not text"),
    ]


def _edit_pyproject(root: Path, old: str, new: str) -> None:
    path = root / "pyproject.toml"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def test_an_unknown_option_is_an_error_with_a_did_you_mean(copy_fixture: Copy) -> None:
    root = copy_fixture("extensions/gizmo")
    _edit_pyproject(root, "[tool.eve.extension]\n", '[tool.eve.extension]\nsorce = "src"\n')
    with pytest.raises(DiagnosticsError) as caught:
        build_extension(root)
    [found] = caught.value.diagnostics
    assert (found.code, found.line, found.message, found.hint) == (
        "project/option-unknown", 14, "`tool.eve.extension` has an unknown option `sorce`",
        "did you mean `source`?")


def test_an_unnormalized_version_is_an_error_naming_the_normal_form(copy_fixture: Copy) -> None:
    root = copy_fixture("extensions/gizmo")
    _edit_pyproject(root, 'version = "1.0.0"', 'version = "1.0.0-RC1"')
    with pytest.raises(DiagnosticsError) as caught:
        build_extension(root)
    [found] = caught.value.diagnostics
    assert (found.code, found.hint) == ("project/version-unnormalized",
                                        'write `version = "1.0.0rc1"`')


@pytest.mark.parametrize(("name", "why"), [
    ("json", "would shadow the standard library"),
    ("pydantic", "would shadow eve-build or a package it depends on"),
    ("eve-build", "would shadow eve-build or a package it depends on"),
])
def test_names_that_shadow_python_or_eve_builds_dependencies_are_refused(
        copy_fixture: Copy, name: str, why: str) -> None:
    root = copy_fixture("extensions/gizmo")
    _edit_pyproject(root, 'name = "gizmo"', f'name = "{name}"')
    with pytest.raises(DiagnosticsError) as caught:
        build_extension(root)
    [found] = caught.value.diagnostics
    assert found.code == "project/name-invalid"
    assert found.message.endswith(why)


def test_a_pyproject_nested_too_deeply_is_a_diagnostic(copy_fixture: Copy) -> None:
    root = copy_fixture("extensions/gizmo")
    (root / "pyproject.toml").write_text("x = " + "[" * 100_000 + "]" * 100_000 + "\n")
    result = CliRunner().invoke(app, ["extension", "build", "--path", str(root)])
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    assert "project/pyproject-invalid" in result.stderr
