"""Publishing `.eve/`: one file replaced at a time, a failed write is a diagnostic."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from eve_build.cli import app
from eve_build.consumer.build import build_agent
from eve_build.errors import DiagnosticsError
from eve_build.formats.compiled import COMPILED_PATH, DIAGNOSTICS_PATH
from tests.consumer.conftest import MakeApp, read_json

REAL_REPLACE = os.replace


def _refuse(name: str) -> object:
    """An os.replace that fails for the file `name`, like a read-only folder."""

    def replace(source: str | Path, target: str | Path) -> None:
        if Path(target).name == name:
            raise PermissionError(13, "Permission denied", str(target))
        REAL_REPLACE(source, target)

    return replace


def _change(root: Path) -> None:
    (root / "instructions.md").write_text("You spin gizmos, carefully.\n")


def test_other_files_in_eve_folders_survive_a_build(make_app: MakeApp) -> None:
    root = make_app("flat", "gizmo")
    build_agent(root)
    extras = [root / ".eve" / "compile" / "notes.txt", root / ".eve" / "discovery" / "x.log"]
    for extra in extras:
        extra.write_text("keep me\n")
    _change(root)

    assert build_agent(root).written
    assert [p.read_text() for p in extras] == ["keep me\n", "keep me\n"]
    assert sorted(p.name for p in (root / ".eve" / "compile").iterdir()) == [
        "compiled-agent.json", "notes.txt"]


def test_a_failed_write_keeps_the_previous_file_and_is_a_diagnostic(
    make_app: MakeApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_app("flat", "gizmo")
    build_agent(root)
    good = (root / COMPILED_PATH).read_bytes()
    _change(root)
    monkeypatch.setattr(os, "replace", _refuse("compiled-agent.json"))

    with pytest.raises(DiagnosticsError) as caught:
        build_agent(root)

    assert (root / COMPILED_PATH).read_bytes() == good
    assert [p.name for p in (root / ".eve" / "compile").iterdir()] == [
        "compiled-agent.json"]  # no temporary file left
    [problem] = caught.value.diagnostics
    assert (problem.code, problem.file) == ("output/write-failed", COMPILED_PATH)
    assert problem.message == (f"`{COMPILED_PATH}` could not be written: Permission denied; "
                               "the previous one is kept")
    assert problem.hint.startswith("check that you may write to `.eve/compile/`")
    diagnostics = read_json(root / DIAGNOSTICS_PATH)  # written after, saying what happened
    assert (diagnostics["status"], diagnostics["errors"]) == ("failed", 1)
    assert diagnostics["items"][0]["code"] == "output/write-failed"


def test_an_unwritable_eve_folder_exits_1_without_a_traceback(
    make_app: MakeApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_app("flat", "gizmo")
    monkeypatch.setattr(os, "replace", _refuse("diagnostics.json"))

    result = CliRunner().invoke(app, ["build", "--path", str(root)])

    assert result.exit_code == 1
    assert "Traceback" not in result.output
    assert (f"{DIAGNOSTICS_PATH}: error output/write-failed: `{DIAGNOSTICS_PATH}` could not "
            "be written: Permission denied") in result.output
    assert isinstance(result.exception, SystemExit)


def test_a_failed_write_removes_its_temporary_file(
    make_app: MakeApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_app("flat", "gizmo")

    def fail_fsync(_fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", fail_fsync)
    with pytest.raises(DiagnosticsError) as caught:
        build_agent(root)

    assert sorted(d.code for d in caught.value.diagnostics) == [
        "output/write-failed", "output/write-failed"]
    assert [p for p in (root / ".eve").rglob("*") if p.is_file()] == []
