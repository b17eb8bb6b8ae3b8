"""The init steps: uv when on PATH, each step streamed as it starts and ends, and the
installer's first error line when a step fails."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from eve_build.cli.steps import make_step_printer
from eve_build.errors import EveBuildError
from eve_build.scaffold.init import init_extension
from eve_build.scaffold.steps import find_first_error_line
from eve_build.scaffold.toolchain import try_locate_checkout
from tests.scaffold.helpers import FakeRunner

UV = "/opt/tools/uv"


@pytest.mark.usefixtures("build_calls")
def test_install_uses_uv_when_it_is_given(tmp_path: Path) -> None:
    runner = FakeRunner()

    result = init_extension("demo", tmp_path, git=False, runner=runner, uv=UV)

    python = str(tmp_path.resolve() / ".venv" / "bin" / "python")
    assert runner.argvs == [
        [UV, "venv", "--quiet", "--python", sys.executable, ".venv"],
        [UV, "pip", "install", "--quiet", "--python", python, str(try_locate_checkout())],
        [UV, "pip", "install", "--quiet", "--python", python, "--no-build-isolation", "-e",
         ".[test]"],
    ]
    assert result.steps[1] == "created .venv (uv)"


@pytest.mark.usefixtures("build_calls")
def test_without_uv_the_venv_and_installs_use_pip(tmp_path: Path) -> None:
    runner = FakeRunner()

    init_extension("demo", tmp_path, git=False, runner=runner)

    assert runner.argvs[0] == [sys.executable, "-m", "venv", ".venv"]
    assert all(argv[1:4] == ["-m", "pip", "install"] for argv in runner.argvs[1:])


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
    python = str(tmp_path.resolve() / ".venv" / "bin" / "python")
    checkout = str(try_locate_checkout())
    output = ("Processing ./x\nERROR: Could not find a version that satisfies the requirement "
              "pydantic>=2.6\nERROR: No matching distribution found for pydantic>=2.6\n")
    runner = FakeRunner(answers={(python, "-m", "pip", "install", "-q", checkout): (1, output)})
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
