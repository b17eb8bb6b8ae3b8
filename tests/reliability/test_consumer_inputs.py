"""Class 2 at `eve build`, `eve info` and `eve state migrate`: odd input is a diagnostic."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from eve_build.cli import app
from eve_build.consumer.build import build_agent
from eve_build.errors import DiagnosticsError
from eve_build.extension.build import build_extension
from eve_build.runtime.snapshot import read_snapshot, write_snapshot
from tests.conftest import FIXTURES, copy_fixture_tree

Copy = Callable[[str], Path]


@pytest.fixture
def one_mount(tmp_path: Path) -> Path:
    root = copy_fixture_tree(FIXTURES / "apps" / "one-mount", tmp_path / "app")
    for name in ("acme-crm", "gizmo"):
        copy_fixture_tree(FIXTURES / "extensions" / name, root / "packages" / name)
    return root


@pytest.mark.parametrize(("pattern", "problem"), [
    (".", "is the workspace root itself, not a member folder"),
    ("", "is empty"),
    ("/tmp/elsewhere", "is absolute; members are folders inside the workspace"),
    ("../other", "leaves the workspace (`..`)"),
])
def test_odd_workspace_members_are_a_diagnostic(one_mount: Path, pattern: str,
                                                problem: str) -> None:
    pyproject = one_mount / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace(
        'members = ["packages/*"]', f'members = ["packages/*", "{pattern}"]'))
    with pytest.raises(DiagnosticsError) as caught:
        build_agent(one_mount)
    [found] = caught.value.diagnostics
    assert (found.code, found.message) == (
        "workspace/member-invalid", f"the workspace pattern `{pattern}` {problem}")
    result = CliRunner().invoke(app, ["info", "--json", "--path", str(one_mount)])
    assert result.exit_code == 1
    assert json.loads(result.stdout)["status"] == "failed"


def test_a_glob_pattern_python_cannot_expand_is_a_diagnostic(one_mount: Path) -> None:
    pyproject = one_mount / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace(
        'members = ["packages/*"]', 'members = ["packages/**x"]'))
    with pytest.raises(DiagnosticsError) as caught:
        build_agent(one_mount)
    assert [d.code for d in caught.value.diagnostics] == ["workspace/member-invalid"]


@pytest.mark.parametrize("extra", ["object()", "{1, 2}", "float('nan')"],
                         ids=["object", "set", "nan"])
def test_a_json_schema_extra_that_is_not_json_is_a_diagnostic(copy_fixture: Copy,
                                                              extra: str) -> None:
    root = copy_fixture("extensions/gizmo")
    tool = root / "extension" / "tools" / "spin.py"
    tool.write_text(tool.read_text().replace(
        "    times: int = 1", f"    times: int = Field(1, json_schema_extra={{'x': {extra}}})"
    ).replace("from pydantic import BaseModel", "from pydantic import BaseModel, Field"))
    try:
        result = build_extension(root)
    except DiagnosticsError as exc:
        assert [d.code for d in exc.diagnostics] == ["tool/schema-failed"]
        assert "JSON" in exc.diagnostics[0].message
    else:  # pydantic may turn the value into JSON itself (a set becomes a list)
        manifest = result.package_dir / "extension" / "_manifest.json"
        json.loads(manifest.read_text(), parse_constant=lambda name: pytest.fail(name))


def test_a_file_named_like_a_slot_is_a_diagnostic(copy_fixture: Copy) -> None:
    root = copy_fixture("extensions/gizmo")
    (root / "extension" / "skills").write_text("not a folder\n")
    with pytest.raises(DiagnosticsError) as caught:
        build_extension(root)
    assert [(d.code, d.file) for d in caught.value.diagnostics] == [
        ("discover/slot-not-folder", "extension/skills")]


def test_a_snapshot_nested_too_deeply_is_a_diagnostic(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(DiagnosticsError) as caught:
        read_snapshot(path)
    assert [(d.code, d.message) for d in caught.value.diagnostics] == [
        ("state/snapshot-invalid", "the file is nested too deeply to read")]


@pytest.mark.parametrize(("target", "problem"), [
    ("missing/out.json", "its folder does not exist"),
    (".", "it is a folder"),
], ids=["missing-folder", "a-folder"])
def test_migrate_output_that_cannot_be_written_is_a_diagnostic(
        tmp_path: Path, target: str, problem: str) -> None:
    path = (tmp_path / target)
    with pytest.raises(DiagnosticsError) as caught:
        write_snapshot(path, {"formatVersion": 1, "state": {}, "approvals": {}})
    [found] = caught.value.diagnostics
    assert (found.code, found.message) == ("state/snapshot-unwritable",
                                           f"cannot write `{path}`: {problem}")
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_a_deeply_nested_manifest_of_a_member_is_rebuilt_not_a_crash(one_mount: Path) -> None:
    build_agent(one_mount)
    manifest = one_mount / "packages" / "acme-crm" / "build" / "eve" / "acme_crm" / \
        "extension" / "_manifest.json"  # the mounted member (an unmounted one is not built)
    manifest.write_text('{"kind": ' + "[" * 100_000 + "]" * 100_000 + "}")
    result = build_agent(one_mount)
    assert {m.name: m.state for m in result.extensions}["acme-crm"] == "built"


def test_an_override_folder_beside_a_flat_mount_is_a_diagnostic(one_mount: Path) -> None:
    overrides = one_mount / "agent" / "extensions" / "crm" / "tools"
    overrides.mkdir(parents=True)
    (overrides / "search.py").write_text("from eve_build.sdk import disable_tool\n\n"
                                         "tool = disable_tool()\n")
    with pytest.raises(DiagnosticsError) as caught:
        build_agent(one_mount)
    assert [(d.code, d.file) for d in caught.value.diagnostics] == [
        ("mount/override-beside-flat-mount", "agent/extensions/crm/")]


def test_a_mounted_tool_name_over_64_characters_is_a_diagnostic(one_mount: Path) -> None:
    mounts = one_mount / "agent" / "extensions"
    long_namespace = "n" * 60
    (mounts / "crm.py").rename(mounts / f"{long_namespace}.py")
    with pytest.raises(DiagnosticsError) as caught:
        build_agent(one_mount)
    found = [d for d in caught.value.diagnostics if d.is_error]
    assert found
    assert {d.code for d in found} == {"mount/tool-name-too-long"}
    assert all(d.message.startswith(f"the tool `{long_namespace}__") for d in found)


def test_a_hand_edited_member_output_is_rebuilt(one_mount: Path) -> None:
    build_agent(one_mount)
    shipped = one_mount / "packages" / "acme-crm" / "build" / "eve" / "acme_crm" / \
        "extension" / "tools" / "search.py"
    original = shipped.read_bytes()
    shipped.write_bytes(original + b"\n# edited by hand\n")
    result = build_agent(one_mount)
    assert {m.name: m.state for m in result.extensions}["acme-crm"] == "built"
    assert shipped.read_bytes() == original


def test_a_hand_edited_installed_extension_is_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = copy_fixture_tree(FIXTURES / "extensions" / "gizmo", tmp_path / "site" / "gizmo")
    build_extension(package)
    monkeypatch.syspath_prepend(str(package / "build" / "eve"))
    shipped = package / "build" / "eve" / "gizmo" / "extension" / "tools" / "spin.py"
    shipped.write_text(shipped.read_text() + "\n# edited by hand\n")
    app_root = copy_fixture_tree(FIXTURES / "apps" / "installed", tmp_path / "app")
    result = build_agent(app_root)
    assert [(d.code, d.file) for d in result.warnings] == [
        ("compat/output-edited", "agent/extensions/gizmo.py")]
    assert "`tools/spin.py` no longer match its manifest" in result.warnings[0].message


@pytest.mark.parametrize("command", [["info", "--json"], ["build", "--json"]])
def test_json_stdout_stays_one_document_when_a_mount_file_prints(
        one_mount: Path, command: list[str]) -> None:
    mount = one_mount / "agent" / "extensions" / "crm.py"
    mount.write_text(mount.read_text() + '\nprint("hello from the mount file")\n')
    # a subprocess: the mount file runs in a worker process, whose output CliRunner cannot see
    result = subprocess.run([sys.executable, "-m", "eve_build", *command, "--path",
                             str(one_mount)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["status"] == "ready"
    assert "hello from the mount file" in result.stderr


def test_migrate_never_replaces_a_fifo_or_a_device(tmp_path: Path) -> None:
    """`eve state migrate -o /dev/full` (as root) used to replace the device with a file."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    device_link = tmp_path / "full"  # a link to a character device: the link is what a
    device_link.symlink_to("/dev/null")  # broken check would replace, never /dev/null
    for target, kind in ((fifo, "a FIFO (named pipe)"), (device_link, "a character device")):
        with pytest.raises(DiagnosticsError) as caught:
            write_snapshot(target, {"formatVersion": 1, "state": {}, "approvals": {}})
        [found] = caught.value.diagnostics
        assert found.code == "state/snapshot-unwritable"
        assert found.message == (f"cannot write `{target}`: it is {kind}, not a regular "
                                 "file; eve-build replaces only regular files")
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert device_link.is_symlink() and stat.S_ISCHR(device_link.stat().st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["full", "pipe"]  # no temp left


def test_migrate_writes_through_a_link_to_a_regular_file(tmp_path: Path) -> None:
    real = tmp_path / "real.json"
    real.write_text("{}")
    link = tmp_path / "session.json"
    link.symlink_to(real)
    write_snapshot(link, {"formatVersion": 1, "state": {"a": 1}, "approvals": {}})
    assert link.is_symlink()  # the link is kept; the file it names holds the snapshot
    assert json.loads(real.read_text())["state"] == {"a": 1}
