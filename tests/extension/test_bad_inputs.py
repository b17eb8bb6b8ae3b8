"""One committed fixture per bad input: a clear diagnostic, and nothing lost.

Each `fixtures/extensions/bad/<case>/expected.json` names the code, the file and
the line the diagnostic must carry.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from eve_build.cli import app
from eve_build.errors import DiagnosticsError
from eve_build.extension.build import build_extension
from tests.conftest import FIXTURES, copy_fixture_tree
from tests.golden_files import read_files

BAD = FIXTURES / "extensions" / "bad"
CASES = sorted(p.name for p in BAD.iterdir() if (p / "expected.json").is_file())
PREVIOUS = {"bad_pkg/__init__.py": b"# the previous good build\n"}


def _prepare(case: str, tmp_path: Path) -> tuple[Path, dict[str, object]]:
    root = tmp_path / case
    copy_fixture_tree(BAD / case, root)
    expected = json.loads((root / "expected.json").read_text())
    # A previous good build's output that a failed build must leave alone.
    output = root / "build" / "eve"
    for relative, data in PREVIOUS.items():
        (output / relative).parent.mkdir(parents=True, exist_ok=True)
        (output / relative).write_bytes(data)
    return root, expected


def _edit_pyproject(root: Path, old: str, new: str) -> None:
    pyproject = root / "pyproject.toml"
    text = pyproject.read_text()
    assert old in text
    pyproject.write_text(text.replace(old, new))


def test_every_bad_case_has_a_fixture() -> None:
    assert len(CASES) >= 29


@pytest.mark.parametrize("case", CASES)
def test_core_reports_code_file_and_line(case: str, tmp_path: Path) -> None:
    root, expected = _prepare(case, tmp_path)

    with pytest.raises(DiagnosticsError) as caught:
        build_extension(root)

    matching = [
        d for d in caught.value.diagnostics
        if (d.code, d.file, d.line) == (expected["code"], expected["file"], expected["line"])
    ]
    assert matching, [d.render() for d in caught.value.diagnostics]
    diagnostic = matching[0]
    assert diagnostic.hint, "every diagnostic tells the user what to do"
    assert str(expected.get("hint_contains", "")) in diagnostic.hint
    assert read_files(root / "build" / "eve") == PREVIOUS


@pytest.mark.parametrize("case", CASES)
def test_cli_prints_the_file_and_the_fix_without_a_traceback(case: str, tmp_path: Path) -> None:
    root, expected = _prepare(case, tmp_path)

    result = CliRunner().invoke(app, ["extension", "build", "--path", str(root)])

    assert result.exit_code == 1
    output = result.output
    location = f"{expected['file']}:{expected['line']}" if expected["line"] else expected["file"]
    assert f"{location}: error {expected['code']}: " in output
    assert "  hint: " in output
    assert "Traceback" not in output
    for secret in expected.get("absent", []):  # type: ignore[attr-defined]
        assert secret not in output
    assert read_files(root / "build" / "eve") == PREVIOUS


def test_all_problems_are_reported_together(copy_fixture, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root = copy_fixture("extensions/gizmo")
    (root / "extension" / "agent.py").write_text("")
    (root / "extension" / "tools" / "Bad.py").write_text("")
    (root / "extension" / "schedules").mkdir()
    (root / "extension" / "schedules" / "tick.py").write_text(
        "from eve_build.sdk import define_schedule\n"
        "schedule = define_schedule(cron='* * *')\n"
    )

    with pytest.raises(DiagnosticsError) as caught:
        build_extension(root)

    codes = sorted(d.code for d in caught.value.diagnostics)
    assert codes == ["discover/name-invalid", "discover/reserved-entry",
                     "schedule/cron-invalid", "schedule/run-or-markdown"]


def test_json_output_lists_diagnostics(tmp_path: Path) -> None:
    root, expected = _prepare("tool-input-missing", tmp_path)

    result = CliRunner().invoke(app, ["extension", "build", "--path", str(root), "--json"])

    assert result.exit_code == 1
    payload = json.loads(result.stdout)
    assert payload["status"] == "failed"
    assert payload["diagnostics"]["errors"] == len(payload["diagnostics"]["items"])
    assert payload["error"]["message"] == "cannot build extension `bad-tool-input-missing`: 1 error"
    assert payload["diagnostics"]["items"][0] == {
        "severity": "error", "code": expected["code"], "file": expected["file"],
        "line": expected["line"], "message": "the tool has no input model",
        "hint": "declare `class Input(pydantic.BaseModel): ...` and pass `input=Input`",
    }


@pytest.mark.parametrize("output", [".", "extension", "extension/out", "./"])
def test_output_overlapping_the_package_is_refused_and_nothing_is_deleted(
    copy_fixture, output: str  # type: ignore[no-untyped-def]
) -> None:
    root = copy_fixture("extensions/gizmo")
    _edit_pyproject(root, 'output = "build/eve"', f'output = "{output}"')
    before = read_files(root)

    with pytest.raises(DiagnosticsError) as caught:
        build_extension(root)

    [diagnostic] = caught.value.diagnostics
    assert (diagnostic.code, diagnostic.file) == ("project/option-invalid", "pyproject.toml")
    assert "overlaps the package" in diagnostic.message
    assert read_files(root) == before


def test_a_failed_write_is_a_diagnostic_and_keeps_the_previous_output(
    copy_fixture, monkeypatch: pytest.MonkeyPatch  # type: ignore[no-untyped-def]
) -> None:
    root = copy_fixture("extensions/gizmo")
    build_extension(root)
    before = read_files(root / "build" / "eve")

    def refuse(*_args: object) -> None:
        raise PermissionError("read-only file system")

    monkeypatch.setattr("eve_build.extension.build.write_tree", refuse)
    instructions = root / "extension" / "instructions.md"
    instructions.write_text(instructions.read_text() + "\nOne more line.\n")  # a new output
    with pytest.raises(DiagnosticsError) as caught:
        build_extension(root)

    assert caught.value.diagnostics[0].code == "output/write-failed"
    assert read_files(root / "build" / "eve") == before


@pytest.mark.parametrize(("output", "fragment"), [
    ("dist", "belongs to wheels, tests or sources"),
    ("tests/out", "belongs to wheels, tests or sources"),
    ("pyproject.toml", "belongs to wheels, tests or sources"),
])
def test_outputs_that_belong_to_others_are_refused(
    copy_fixture, output: str, fragment: str  # type: ignore[no-untyped-def]
) -> None:
    root = copy_fixture("extensions/acme-crm")
    (root / "dist").mkdir()
    (root / "dist" / "acme_crm-0.3.0-py3-none-any.whl").write_bytes(b"a wheel")
    _edit_pyproject(root, 'output = "build/eve"', f'output = "{output}"')
    before = read_files(root)

    with pytest.raises(DiagnosticsError) as caught:
        build_extension(root)

    assert fragment in caught.value.diagnostics[0].message
    assert read_files(root) == before


def test_an_output_folder_with_foreign_files_is_not_replaced(copy_fixture) -> None:  # type: ignore[no-untyped-def]
    root = copy_fixture("extensions/gizmo")
    build_extension(root)
    (root / "build" / "eve" / "notes.txt").write_text("mine")
    before = read_files(root / "build")

    with pytest.raises(DiagnosticsError) as caught:
        build_extension(root)

    [diagnostic] = caught.value.diagnostics
    assert diagnostic.code == "output/foreign-files"
    assert "`build/eve/notes.txt` was not written by eve-build" in diagnostic.message
    assert read_files(root / "build") == before


@pytest.mark.parametrize(("name", "problem"), [
    ("Acme CRM", "not a valid distribution name"),
    ("1crm", "not a Python identifier"),
    ("import", "not a Python identifier"),
])
def test_project_names_that_cannot_be_imported_are_refused(
    copy_fixture, name: str, problem: str  # type: ignore[no-untyped-def]
) -> None:
    root = copy_fixture("extensions/gizmo")
    _edit_pyproject(root, 'name = "gizmo"', f'name = "{name}"')

    with pytest.raises(DiagnosticsError) as caught:
        build_extension(root)

    [diagnostic] = caught.value.diagnostics
    assert (diagnostic.code, diagnostic.file, diagnostic.line) == (
        "project/name-invalid", "pyproject.toml", 6)
    assert problem in diagnostic.message
    assert not (root / "build").exists()


@pytest.mark.parametrize("stem", ["2fa", "class"])
def test_tool_names_that_are_no_python_names_are_refused(
    copy_fixture, stem: str  # type: ignore[no-untyped-def]
) -> None:
    root = copy_fixture("extensions/gizmo")
    tools = root / "extension" / "tools"
    (tools / f"{stem}.py").write_text((tools / "spin.py").read_text())

    with pytest.raises(DiagnosticsError) as caught:
        build_extension(root)

    [diagnostic] = caught.value.diagnostics
    assert (diagnostic.code, diagnostic.file) == (
        "discover/identifier-invalid", f"extension/tools/{stem}.py")


def test_connection_headers_must_be_a_mapping(copy_fixture) -> None:  # type: ignore[no-untyped-def]
    root = copy_fixture("extensions/gizmo")
    (root / "extension" / "connections").mkdir()
    (root / "extension" / "connections" / "api.py").write_text(
        "from eve_build.sdk import define_connection\n"
        "connection = define_connection(url='https://x', headers=5)\n"
    )

    with pytest.raises(DiagnosticsError) as caught:
        build_extension(root)

    [diagnostic] = caught.value.diagnostics
    assert (diagnostic.code, diagnostic.file, diagnostic.line) == (
        "connection/headers-invalid", "extension/connections/api.py", 2)
