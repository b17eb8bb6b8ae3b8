"""`eve add` refuses what it cannot mount, and then nothing in the project has changed."""

from __future__ import annotations

import subprocess
import zipfile
from collections.abc import Sequence
from pathlib import Path

import pytest
from typer.testing import CliRunner

from eve_build.add.extension import add_extension
from eve_build.add.installer import Runner
from eve_build.cli import app as cli
from eve_build.errors import DiagnosticsError
from tests.conftest import FIXTURES, copy_fixture_tree

Calls = list[list[str]]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return copy_fixture_tree(FIXTURES / "apps" / "installed", tmp_path / "agent-project")


def _snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file()}


def _failing_runner(calls: Calls, returncode: int = 1) -> Runner:
    def run(argv: Sequence[str], cwd: Path) -> subprocess.CompletedProcess[str]:
        calls.append(list(argv))
        return subprocess.CompletedProcess(list(argv), returncode,
                                           stdout="ERROR: No matching distribution found")
    return run


def _refused(project: Path, target: str, namespace: str | None = None) -> tuple[str, str, Calls]:
    calls: Calls = []
    before = _snapshot(project)
    with pytest.raises(DiagnosticsError) as caught:
        add_extension(project, target, namespace, runner=_failing_runner(calls))
    assert _snapshot(project) == before  # nothing changed
    [problem] = caught.value.diagnostics
    return problem.code, problem.message, calls


def test_a_folder_that_is_not_an_extension_is_refused(project: Path, tmp_path: Path) -> None:
    other = tmp_path / "plain"
    other.mkdir()
    (other / "pyproject.toml").write_text('[project]\nname = "plain"\nversion = "1.0"\n')
    code, message, calls = _refused(project, str(other))
    assert code == "add/not-an-extension"
    assert message == f"`{other}` is not an eve extension: `{other}` has no pyproject.toml " \
                      "with `[tool.eve.extension]`"
    assert calls == []


def test_a_wheel_without_a_manifest_is_refused(project: Path, tmp_path: Path) -> None:
    wheel = tmp_path / "plain-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("plain-1.0.dist-info/METADATA", "Name: plain\nVersion: 1.0\n")
    code, message, calls = _refused(project, str(wheel))
    assert code == "add/not-an-extension"
    assert "has no `eve-manifest.json` in its dist-info" in message
    assert calls == []


def test_a_taken_namespace_is_refused(project: Path, tmp_path: Path) -> None:
    gizmo = copy_fixture_tree(FIXTURES / "extensions" / "gizmo", tmp_path / "gizmo")
    code, message, calls = _refused(project, str(gizmo))  # default namespace: gizmo
    assert code == "add/namespace-taken"
    assert message == ("the namespace `gizmo` is taken: `agent/extensions/gizmo.py` (or its "
                       "directory mount) already exists")
    assert calls == []


def test_an_invalid_namespace_is_refused(project: Path, tmp_path: Path) -> None:
    gizmo = copy_fixture_tree(FIXTURES / "extensions" / "gizmo", tmp_path / "gizmo")
    code, message, _ = _refused(project, str(gizmo), "Big__Name")
    assert code == "add/namespace-invalid"
    assert "contains `__`" in message


def test_a_failed_install_changes_nothing(project: Path, tmp_path: Path) -> None:
    gizmo = copy_fixture_tree(FIXTURES / "extensions" / "gizmo", tmp_path / "gizmo")
    code, message, calls = _refused(project, str(gizmo), "spinner")
    assert code == "add/install-failed"
    assert message.endswith("failed: ERROR: No matching distribution found")
    [command] = [c for c in calls if c[1:2] != ["-c"]]  # not the probes of what is installed
    assert command[-3:] == ["--no-build-isolation", "-e", str(gizmo.resolve())]


def test_a_package_that_does_not_install_changes_nothing(project: Path) -> None:
    code, _, calls = _refused(project, "surely-not-an-eve-extension==9")
    assert code == "add/install-failed"
    [command] = calls
    assert command[-4:-2] == ["--no-deps", "--target"]
    assert command[-1] == "surely-not-an-eve-extension==9"


def test_the_cli_reports_a_missing_path_without_a_traceback(project: Path) -> None:
    result = CliRunner().invoke(cli, ["add", "./no-such-extension", "--path", str(project)])
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        "./no-such-extension: error add/target-not-found: `./no-such-extension` does not exist",
        "  hint: pass an extension project's folder, a wheel file or a package name",
        "error: cannot add the extension: 1 error",
    ]
    assert "Traceback" not in result.output
