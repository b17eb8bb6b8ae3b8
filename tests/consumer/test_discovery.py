"""Agent discovery: `<ns>__<name>` files at the agent root are overrides, not bad names."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from eve_build.cli import app
from eve_build.consumer.build import build_agent
from eve_build.source.discover import discover_source
from tests.consumer.conftest import MakeApp, build_errors


def _tree(root: Path, files: list[str]) -> Path:
    for relative in files:
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("")
    return root


def test_a_qualified_name_in_an_agent_is_an_override(tmp_path: Path) -> None:
    root = _tree(tmp_path, ["tools/crm__search.py", "tools/own.py", "channels/crm__hook.py"])

    layout, found = discover_source(root, display="agent/", package_root=tmp_path, role="agent")

    assert found == []
    assert [(e.slot.directory, e.name, e.path) for e in layout.tree.overrides] == [
        ("channels", "crm__hook", "channels/crm__hook.py"),
        ("tools", "crm__search", "tools/crm__search.py")]
    assert [e.name for e in layout.tree.modules] == ["own"]


def test_an_extension_still_rejects_a_double_underscore(tmp_path: Path) -> None:
    root = _tree(tmp_path, ["extension.py", "tools/crm__search.py"])

    layout, found = discover_source(root, display="extension/", package_root=tmp_path)

    assert [d.code for d in found] == ["discover/name-invalid"]
    assert layout.tree.overrides == []


def test_only_prefixed_slots_at_the_first_level_take_overrides(tmp_path: Path) -> None:
    root = _tree(tmp_path, ["hooks/crm__audit.py", "tools/admin/crm__reset.py"])

    _, found = discover_source(root, display="agent/", package_root=tmp_path, role="agent")

    assert sorted((d.code, d.file) for d in found) == [
        ("discover/name-invalid", "agent/hooks/crm__audit.py"),
        ("discover/name-invalid", "agent/tools/admin/crm__reset.py")]


def test_the_root_agent_needs_instructions(make_app: MakeApp) -> None:
    root = make_app("one-mount", "acme-crm", "gizmo")
    (root / "agent" / "instructions.md").unlink()

    errors = build_errors(root)

    assert [e.splitlines()[0] for e in errors] == [
        "agent/instructions.md: error agent/instructions-missing: the agent has no "
        "`agent/instructions.md`"]


def test_a_mount_value_from_another_package_is_a_mismatch(make_app: MakeApp) -> None:
    root = make_app("directory-mount", "acme-crm", "gizmo")
    (root / "agent" / "extensions" / "crm" / "extension.py").write_text(
        "from acme_crm import acme_crm\nfrom eve_build.sdk import Mount\n\n"
        "mount = Mount(package='gizmo', import_name='gizmo', version='1.0.0')\n")

    errors = build_errors(root)

    assert [e.splitlines()[0] for e in errors] == [
        "agent/extensions/crm/extension.py:4: error mount/package-mismatch: `mount` in "
        "`agent/extensions/crm/extension.py` mounts `gizmo`, but the file imports `acme_crm` "
        "(`acme-crm`)"]


def test_the_agent_module_may_be_left_out(make_app: MakeApp) -> None:
    root = make_app("one-mount", "acme-crm", "gizmo")
    (root / "agent" / "agent.py").unlink()

    tree = build_agent(root).compiled.root

    assert (tree.agent_module, tree.model, tree.description) == (None, None, None)


@pytest.mark.parametrize("relative", [
    "agent/instructions.md", "agent/extensions/crm/instructions.md"],
    ids=["agent", "beside-a-directory-mount"])
def test_instructions_that_are_not_utf8_are_an_error_naming_the_file(
    make_app: MakeApp, relative: str
) -> None:
    root = make_app("directory-mount", "acme-crm", "gizmo")
    (root / relative).write_bytes("Sei h\u00f6flich.\n".encode("latin-1"))

    result = CliRunner().invoke(app, ["build", "--path", str(root)])

    assert result.exit_code == 1
    assert "Traceback" not in result.output
    assert result.output.splitlines()[:2] == [
        f"{relative}: error agent/instructions-unreadable: the instructions `{relative}` "
        "cannot be used: it is not UTF-8 text (byte 6 cannot be decoded)",
        f"  hint: save `{relative}` as UTF-8",
    ]
