"""A node's venv: uv when on PATH, else venv + pip; installed once; the key error line."""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path

import pytest

from eve_build.errors import DiagnosticsError
from eve_build.node.venv import ensure_environment, find_key_line
from tests.conftest import FIXTURES


class FakeRunner:
    """Records commands; `python -m venv` / `uv venv` make the interpreter file."""

    def __init__(self, fail_on: str | None = None, output: str = "") -> None:
        self.calls: list[list[str]] = []
        self.fail_on = fail_on
        self.output = output

    def __call__(self, argv: Sequence[str], cwd: Path) -> tuple[int, str]:
        self.calls.append(list(argv))
        if "venv" in argv:
            (cwd / ".venv" / "bin").mkdir(parents=True)
            (cwd / ".venv" / "bin" / "python").write_text("")
        if self.fail_on is not None and self.fail_on in argv:
            return 1, self.output
        return 0, ""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return Path(shutil.copytree(FIXTURES / "nodes" / "echo-node", tmp_path / "echo"))


def test_without_uv_it_uses_venv_and_pip_then_installs_nothing_again(
        project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)
    runner = FakeRunner()
    python, steps = ensure_environment(project, "echo", runner)
    assert python == project / ".venv" / "bin" / "python"
    assert [call[1:3] for call in runner.calls] == [["-m", "venv"], ["-m", "pip"],
                                                     ["-m", "pip"]]
    assert runner.calls[-1][-2:] == ["-e", "."]
    assert steps[0] == "created .venv with venv"
    again = FakeRunner()
    assert ensure_environment(project, "echo", again) == (python, [])
    assert again.calls == []
    (project / "pyproject.toml").write_text((project / "pyproject.toml").read_text() + "\n")
    ensure_environment(project, "echo", again)  # a changed pyproject installs again
    assert [call[-2:] for call in again.calls][-1] == ["-e", "."]


def test_with_uv_on_path_it_uses_uv(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: "/opt/uv" if name == "uv" else None)
    runner = FakeRunner()
    ensure_environment(project, "echo", runner)
    assert [call[:2] for call in runner.calls] == [["/opt/uv", "venv"], ["/opt/uv", "pip"],
                                                   ["/opt/uv", "pip"]]


@pytest.mark.parametrize(("output", "key"), [
    ("Collecting nope\nERROR: Could not find a version that satisfies the requirement nope\n"
     "ERROR: No matching distribution found for nope\n", "No matching distribution found for nope"),
    ("  \u00d7 No solution found when resolving dependencies:\n"
     "  \u2570\u2500\u25b6 Because nope was not found in the package registry, stop.\n",
     "Because nope was not found in the package registry, stop."),
    ("error: No solution found when resolving dependencies\n"
     "  cause: Because nope was not found in the package registry, stop.\n"
     "         And because you require nope, your requirements are unsatisfiable.\n",
     "Because nope was not found in the package registry, stop."),
    ("something odd\nthe last line\n", "the last line"),
    ("", "(no output)"),
])
def test_the_key_line_of_an_install_failure(output: str, key: str) -> None:
    assert find_key_line(output) == key


def test_a_failed_venv_creation_is_a_diagnostic(project: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(DiagnosticsError) as info:
        ensure_environment(project, "echo", FakeRunner("venv", "Error: no ensurepip\n"))
    [diagnostic] = info.value.diagnostics
    assert (diagnostic.code, diagnostic.message) == (
        "node/install-failed", "creating `.venv` failed: no ensurepip")
