"""The init steps: uv when on PATH, each step streamed as it starts and ends, and the
installer's first error line when a step fails."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from eve_build._version import __version__
from eve_build.cli.steps import make_step_printer
from eve_build.errors import EveBuildError
from eve_build.scaffold import steps
from eve_build.scaffold.init import init_extension
from eve_build.scaffold.installer import PIP_QUIET, locate_pip_wheel
from eve_build.scaffold.metadata import derive_pyproject, derive_runtime_requirement
from eve_build.scaffold.steps import (
    derive_scaffold_requirements,
    find_first_error_line,
    install_environment,
)
from tests.scaffold.helpers import FakeRunner

UV = "/opt/tools/uv"


@pytest.mark.usefixtures("build_calls")
def test_install_uses_uv_when_it_is_given(tmp_path: Path) -> None:
    runner = FakeRunner()

    result = init_extension("demo", tmp_path, git=False, runner=runner, uv=UV)

    python = str(tmp_path.resolve() / ".venv" / "bin" / "python")
    wheel = runner.argvs[1][-5]
    assert wheel.endswith("-py3-none-any.whl")
    uv_pip = [UV, "pip", "install", "--quiet", "--python", python]
    assert runner.argvs == [
        [UV, "venv", "--quiet", "--python", sys.executable, ".venv"],
        [*uv_pip, "pip", wheel, derive_runtime_requirement(__version__), "pydantic>=2",
         "pytest>=8", "build>=1.2"],
        [*uv_pip, "--no-deps", "--no-build-isolation", "-e", "."],
    ]
    assert result.steps[1] == "created .venv (uv)"


@pytest.mark.usefixtures("build_calls")
def test_without_uv_the_running_pip_installs_into_a_venv_created_without_pip(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(steps, "can_install_from_outside", lambda: True)
    monkeypatch.setattr(steps, "write_dependency_wheels", lambda directory: None)
    runner = FakeRunner()

    init_extension("demo", tmp_path, git=False, runner=runner)

    python = str(tmp_path.resolve() / ".venv" / "bin" / "python")
    assert runner.argvs[0] == [sys.executable, "-m", "venv", "--without-pip", ".venv"]
    pip = [sys.executable, "-m", "pip", "--python", python, "install", *PIP_QUIET]
    assert all(argv[:len(pip)] == pip for argv in runner.argvs[1:])
    # the venv gets its own pip in the first install, resolved with everything else
    assert runner.argvs[1][len(pip)] == locate_pip_wheel()


def test_without_a_usable_running_pip_the_venvs_own_pip_installs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(steps, "write_dependency_wheels", lambda directory: None)
    (tmp_path / "pyproject.toml").write_text(derive_pyproject("demo", __version__))
    runner = FakeRunner()

    install_environment(runner, tmp_path, "demo", outside=False)

    python = str(tmp_path / ".venv" / "bin" / "python")
    assert runner.argvs[0] == [sys.executable, "-m", "venv", ".venv"]
    assert runner.argvs[1][:4 + len(PIP_QUIET)] == [python, "-m", "pip", "install", *PIP_QUIET]
    assert runner.argvs[1][-4:] == [derive_runtime_requirement(__version__), "pydantic>=2",
                                    "pytest>=8", "build>=1.2"]
    assert runner.argvs[2] == [python, "-m", "pip", "install", *PIP_QUIET, "--no-deps",
                               "--no-build-isolation", "-e", "."]


@pytest.mark.usefixtures("build_calls")
def test_with_the_dependencies_repacked_eve_build_installs_without_the_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(steps, "can_install_from_outside", lambda: True)
    seen: list[Path] = []
    monkeypatch.setattr(steps, "write_dependency_wheels",
                        lambda directory: seen.append(directory) or [])
    runner = FakeRunner()

    init_extension("demo", tmp_path, git=False, runner=runner)

    python = str(tmp_path.resolve() / ".venv" / "bin" / "python")
    pip = [sys.executable, "-m", "pip", "--python", python, "install", *PIP_QUIET]
    first, second = runner.argvs[1], runner.argvs[2]
    assert first[:len(pip) + 3] == [*pip, "--no-index", "--find-links", str(seen[0])]
    assert first[len(pip) + 3:-1] == [locate_pip_wheel()] * locate_pip_wheel().endswith(".whl")
    assert first[-1].endswith("-py3-none-any.whl")
    # the package's own requirements (its test extra) are resolved on the index
    assert second[len(pip):][-3:] == ["--no-build-isolation", "-e", ".[test]"]


def test_uv_installs_never_repack(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def repack(directory: Path) -> list[Path]:
        raise AssertionError("uv resolves on its own, fast")

    monkeypatch.setattr(steps, "write_dependency_wheels", repack)
    (tmp_path / "pyproject.toml").write_text(derive_pyproject("demo", __version__))
    runner = FakeRunner()

    install_environment(runner, tmp_path, "demo", uv=UV)

    assert "--no-index" not in runner.argvs[1]


def test_the_scaffold_requirements_are_its_dependencies_and_test_extra(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "demo"\ndependencies = ["eve-build>=0.1,<1", "httpx"]\n'
        '[project.optional-dependencies]\ntest = ["pytest>=8", "Demo[extra]"]\n'
        'dev = ["ruff"]\n')

    # `Demo[extra]` names the package itself: it is being installed, not a requirement
    assert derive_scaffold_requirements(tmp_path, "demo") == [
        "eve-build>=0.1,<1", "httpx", "pytest>=8"]


def test_an_unreadable_scaffold_pyproject_is_an_error_not_a_traceback(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[project\n")

    with pytest.raises(EveBuildError, match=r"cannot read `.*pyproject\.toml`"):
        derive_scaffold_requirements(tmp_path, "demo")


@pytest.mark.usefixtures("build_calls")
def test_each_step_is_reported_as_it_starts_and_ends(tmp_path: Path) -> None:
    events: list[tuple[str, str, int]] = []
    runner = FakeRunner()

    def record(event: str, step: str) -> None:
        events.append((event, step, len(runner.calls)))  # commands run so far

    init_extension("demo", tmp_path, git=False, runner=runner, report=record)

    assert events == [
        ("start", "creating `.venv`", 0), ("done", "creating `.venv`", 1),
        ("start", "installing eve-build", 1), ("done", "installing eve-build", 2),
        ("start", "installing `demo`", 2), ("done", "installing `demo`", 3),
        ("start", "building the extension", 3), ("done", "building the extension", 3),
    ]


@pytest.mark.usefixtures("build_calls")
def test_a_failed_install_quotes_the_installers_first_error_line(tmp_path: Path) -> None:
    output = ("Processing ./x\nERROR: Could not find a version that satisfies the requirement "
              "pydantic>=2.6\nERROR: No matching distribution found for pydantic>=2.6\n")

    class FailingWheelInstall(FakeRunner):
        def __call__(self, argv: Sequence[str], cwd: Path) -> tuple[int, str]:
            code, text = super().__call__(argv, cwd)
            wheel = any(str(arg).endswith(".whl") for arg in argv)
            return (1, output) if wheel else (code, text)

    runner = FailingWheelInstall()
    events: list[tuple[str, str]] = []

    with pytest.raises(EveBuildError) as caught:
        init_extension("demo", tmp_path, git=False, runner=runner,
                       report=lambda event, step: events.append((event, step)))

    assert caught.value.message.startswith(
        "installing eve-build failed (exit code 1): ERROR: Could not find a version that "
        "satisfies the requirement pydantic>=2.6; its last output:")
    assert events[-1] == ("failed", "installing eve-build")


@pytest.mark.parametrize(("output", "first"), [
    ("  \u00d7 No solution found when resolving dependencies:\n  ╰─▶ nope\n",
     "\u00d7 No solution found when resolving dependencies:"),
    ("warning: x\nfatal: not a git repository\n", "fatal: not a git repository"),
    ("error: externally-managed-environment\n", "error: externally-managed-environment"),
    ("Building wheel\nsomething odd\n", None),
])
def test_the_first_error_line_of_pip_uv_and_git(output: str, first: str | None) -> None:
    assert find_first_error_line(output) == first


def test_steps_print_plain_lines_when_not_on_a_terminal(
    capsys: pytest.CaptureFixture[str]
) -> None:
    report = make_step_printer(terminal=False)

    report("start", "creating `.venv`")
    first = capsys.readouterr().err
    report("done", "creating `.venv`")
    report("start", "installing eve-build")
    report("failed", "installing eve-build")

    assert first == "- creating `.venv`...\n"  # printed when the step starts, not at its end
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("  done: creating `.venv` (")
    assert lines[1] == "- installing eve-build..."
    assert lines[2].startswith("  failed: installing eve-build (")


def test_steps_show_a_spinner_on_a_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    report: Callable[[str, str], None] = make_step_printer(terminal=True)

    report("start", "installing eve-build")
    report("done", "installing eve-build")

    err = capsys.readouterr().err
    assert "- installing eve-build..." not in err  # the spinner replaces the start line
    assert "done: installing eve-build (" in err
