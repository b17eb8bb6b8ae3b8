"""Class 5, pyproject values and output places (issue 23 item 14): each is a diagnostic
naming the key or the file, with the fix, and the previous output is intact."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from eve_build.cli import app
from eve_build.errors import DiagnosticsError
from eve_build.extension.build import build_extension

Copy = Callable[[str], Path]


def snapshot(root: Path) -> dict[str, str]:
    """Every entry under `root` (no link followed): kind and bytes or link text."""
    found = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(folder) / name
            relative = path.relative_to(root).as_posix()
            if path.is_symlink():
                found[relative] = f"link {path.readlink()}"
            elif path.is_file():
                found[relative] = hashlib.sha256(path.read_bytes()).hexdigest()
            else:
                found[relative] = "dir"
    return found


def edit_pyproject(root: Path, old: str, new: str) -> None:
    pyproject = root / "pyproject.toml"
    text = pyproject.read_text()
    assert old in text
    pyproject.write_text(text.replace(old, new))


def break_a_tool(root: Path) -> None:
    with (root / "extension" / "tools" / "spin.py").open("a") as stream:
        stream.write("\ndef (\n")


@pytest.fixture
def gizmo(copy_fixture: Copy, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("EVE_CACHE_DIR", raising=False)  # the cache beside the output counts
    root = copy_fixture("extensions/gizmo")
    build_extension(root)
    return root


@pytest.mark.parametrize(("old", "new", "code", "message", "hint"), [
    ('"pydantic>=2"]', '"pydantic>=2", "not a req !!"]', "project/dependency-invalid",
     "`[project].dependencies` entry `not a req !!` is not a PEP 508 requirement",
     'e.g. `"httpx>=0.27"`'),
    ('name = "gizmo"', 'name = "test"', "project/name-invalid",
     "`[project].name` `test` gives the import name `test`, which would shadow the standard "
     "library", '`name = "test-extension"`'),
    ('version = "1.0.0"', "version = 1.0", "project/name-missing",
     "`[project].version` is a float, not a string", '`version = "1.0"`'),
    ('output = "build/eve"', 'output = "~/x"', "project/option-invalid",
     "`tool.eve.extension.output` `~/x` starts with `~`, which is not expanded",
     '`output = "build/eve"`'),
])
def test_a_pyproject_value_that_would_pass_or_be_misreported_is_a_diagnostic(
        gizmo: Path, old: str, new: str, code: str, message: str, hint: str) -> None:
    edit_pyproject(gizmo, old, new)
    before = snapshot(gizmo)

    result = CliRunner().invoke(app, ["extension", "build", "--path", str(gizmo)])

    assert result.exit_code == 1
    assert "pyproject.toml" in result.output and f"error {code}: {message}" in result.output
    assert hint in result.output
    assert "Traceback" not in result.output
    assert snapshot(gizmo) == before
    assert not (gizmo / "~").exists()


def _output_inside(root: Path) -> tuple[str, str]:
    edit_pyproject(root, 'output = "build/eve"', 'output = "build/eve/gizmo/nested"')
    return ("`build/eve/gizmo/nested` is inside `build/eve`, the output of an earlier build",
            "back to `build/eve`")


def _output_at_a_file(root: Path) -> tuple[str, str]:
    (root / "notes.txt").write_text("mine\n")
    edit_pyproject(root, 'output = "build/eve"', 'output = "notes.txt"')
    return "`notes.txt` is a file, not an output folder", "move `notes.txt` away"


def _build_eve_a_file(root: Path) -> tuple[str, str]:
    shutil.rmtree(root / "build" / "eve")
    (root / "build" / "eve").write_text("mine\n")
    return "`build/eve` is a file, not an output folder", "move `build/eve` away"


def _build_eve_dangling(root: Path) -> tuple[str, str]:
    shutil.rmtree(root / "build" / "eve")
    (root / "build" / "eve").symlink_to(root / "nowhere")
    return "`build/eve` is a symlink to", "remove the link (`rm build/eve`)"


@pytest.mark.parametrize("place", [_output_inside, _output_at_a_file, _build_eve_a_file,
                                   _build_eve_dangling])
def test_an_output_place_a_build_must_not_replace_is_refused_before_anything_changes(
        gizmo: Path, place: Callable[[Path], tuple[str, str]]) -> None:
    message, hint = place(gizmo)
    break_a_tool(gizmo)
    before = snapshot(gizmo)

    with pytest.raises(DiagnosticsError) as caught:
        build_extension(gizmo)

    [problem] = caught.value.diagnostics
    assert (problem.code, problem.file) == ("project/output-unsafe", "pyproject.toml")
    assert problem.message.startswith(f"`tool.eve.extension.output`: {message}")
    assert hint in problem.hint
    assert snapshot(gizmo) == before


def test_an_output_linked_to_a_folder_of_user_files_is_never_changed(
        gizmo: Path, tmp_path: Path) -> None:
    """A failed build reports its own error; a good one refuses to replace the folder."""
    data = tmp_path / "data"
    data.mkdir()
    (data / "a.json").write_text('{"mine": true}\n')
    shutil.rmtree(gizmo / "build" / "eve")
    (gizmo / "build" / "eve").symlink_to(data)
    spin = gizmo / "extension" / "tools" / "spin.py"
    good = spin.read_text()
    break_a_tool(gizmo)
    before, kept = snapshot(gizmo), snapshot(data)

    with pytest.raises(DiagnosticsError) as failed:
        build_extension(gizmo)
    assert [d.code for d in failed.value.diagnostics] == ["load/syntax-error"]
    assert (snapshot(gizmo), snapshot(data)) == (before, kept)

    spin.write_text(good)
    with pytest.raises(DiagnosticsError) as refused:
        build_extension(gizmo)
    assert [d.code for d in refused.value.diagnostics] == ["output/foreign-files"]
    assert "`build/eve/a.json` was not written by eve-build" in refused.value.diagnostics[0].message
    assert snapshot(data) == kept and (gizmo / "build" / "eve").is_symlink()


def test_a_default_with_no_json_form_is_a_warning_and_never_in_the_manifest(
        gizmo: Path) -> None:
    (gizmo / "extension" / "extension.py").write_text(
        "from typing import Any\n"
        "import pydantic\n"
        "from pydantic import BaseModel\n"
        "from eve_build.sdk import define_extension\n\n"
        "class Config(BaseModel):\n"
        "    where: Any = pydantic\n"
        "    thing: Any = object()\n"
        "    raw: bytes = b'\\xff\\x00'\n\n"
        "extension = define_extension(config=Config)\n")

    result = build_extension(gizmo)

    found = [(w.code, w.file, w.line) for w in result.warnings]
    assert found == [("model/default-not-json", "extension/extension.py", line)
                     for line in (7, 8, 9)]
    assert "`thing` of `Config` is a `object`, which has no JSON form" in \
        result.warnings[1].message
    text = (gizmo / "build/eve/gizmo/extension/_manifest.json").read_text()
    assert "object at 0x" not in text and "site-packages" not in text
    assert json.loads(text)["config"]["properties"]["raw"].get("default") is None
