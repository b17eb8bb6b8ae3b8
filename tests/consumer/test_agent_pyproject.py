"""The agent app's own pyproject.toml (not an extension's) is checked: one committed
fixture per bad input under `fixtures/apps/bad/<case>/`, whose `expected.json` names
the code, the file and the line. `eve build` says it at `pyproject.toml:LINE` with a
hint, exits 1 without a traceback, and the previous build is left as it was; `eve add`
refuses before it installs anything; `eve serve` refuses to name the agent's state by it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from eve_build.add.extension import add_extension
from eve_build.consumer.build import build_agent
from eve_build.errors import DiagnosticsError
from eve_build.serve.scope import project_identity
from tests.conftest import FIXTURES, copy_fixture_tree
from tests.golden_files import read_files

BAD = FIXTURES / "apps" / "bad"
CASES = sorted(p.name for p in BAD.iterdir() if (p / "expected.json").is_file())
GOOD = '[project]\nname = "bad-agent"\nversion = "0.1.0"\ndependencies = ["eve-build"]\n'
ADD_OWN = {"pyproject-syntax", "dependencies-not-a-list", "dependencies-not-strings",
           "project-not-a-table"}
"""Cases `eve add` reports with its own `add/project-invalid` (it edits that TOML)."""


def _built(case: str, tmp_path: Path) -> tuple[Path, dict[str, Any], dict[str, bytes]]:
    """The case's app after a good build (with a good pyproject), its bad pyproject back."""
    root = copy_fixture_tree(BAD / case, tmp_path / case)
    bad = (root / "pyproject.toml").read_text()
    (root / "pyproject.toml").write_text(GOOD)
    build_agent(root)
    (root / "pyproject.toml").write_text(bad)
    return root, json.loads((root / "expected.json").read_text()), read_files(root / ".eve" /
                                                                              "compile")


def test_every_bad_case_has_a_fixture() -> None:
    assert len(CASES) >= 7


@pytest.mark.parametrize("case", CASES)
def test_eve_build_names_the_file_line_and_fix_and_keeps_the_last_build(
        case: str, tmp_path: Path) -> None:
    root, expected, before = _built(case, tmp_path)

    with pytest.raises(DiagnosticsError) as caught:
        build_agent(root)
    done = subprocess.run([sys.executable, "-m", "eve_build", "build", "--path", str(root)],
                          capture_output=True, text=True, timeout=300, check=False,
                          env={**os.environ, "NO_COLOR": "1", "EVE_HOME": str(tmp_path)})

    [problem] = caught.value.diagnostics
    assert (problem.code, problem.file, problem.line) == (
        expected["code"], expected["file"], expected["line"])
    assert expected["hint_contains"] in problem.hint
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stdout == ""
    assert f"{expected['file']}:{expected['line']}: error {expected['code']}: " in done.stderr
    assert f"  hint: {problem.hint}" in done.stderr
    assert read_files(root / ".eve" / "compile") == before  # the last good build


@pytest.mark.parametrize("case", CASES)
def test_eve_add_refuses_before_it_installs(case: str, tmp_path: Path) -> None:
    root = copy_fixture_tree(BAD / case, tmp_path / case)
    expected = json.loads((root / "expected.json").read_text())
    gizmo = copy_fixture_tree(FIXTURES / "extensions" / "gizmo", tmp_path / "gizmo")
    calls: list[list[str]] = []

    def runner(argv: Sequence[str], cwd: Path) -> subprocess.CompletedProcess[str]:
        calls.append(list(argv))
        return subprocess.CompletedProcess(list(argv), 0, stdout="")

    before = read_files(root)
    with pytest.raises(DiagnosticsError) as caught:
        add_extension(root, str(gizmo), "spinner", runner=runner)

    [problem] = caught.value.diagnostics
    code = "add/project-invalid" if case in ADD_OWN else expected["code"]
    assert (problem.code, problem.file) == (code, "pyproject.toml")
    assert problem.hint
    if case == "project-not-a-table":
        assert "write it as a table" in problem.hint  # (it said "write it as a list")
    assert calls == []  # nothing installed
    assert read_files(root) == before


@pytest.mark.parametrize("case", ["pyproject-syntax", "name-not-a-string", "project-not-a-table"])
def test_the_served_state_is_not_named_by_a_bad_pyproject(case: str, tmp_path: Path) -> None:
    root = copy_fixture_tree(BAD / case, tmp_path / case)
    expected = json.loads((root / "expected.json").read_text())

    with pytest.raises(DiagnosticsError) as caught:
        project_identity(root)  # `name = 3` used to name the state after the folder

    [problem] = caught.value.diagnostics
    assert (problem.code, problem.file, problem.line) == (
        expected["code"], str(root / "pyproject.toml"), expected["line"])
