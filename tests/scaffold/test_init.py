"""`init_extension`: the files it writes, what it refuses, and the commands it runs."""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import pytest

from eve_build._version import __version__
from eve_build.errors import EveBuildError
from eve_build.scaffold import init_extension, steps
from eve_build.scaffold.installer import PIP_QUIET, locate_pip_wheel
from eve_build.scaffold.metadata import derive_runtime_requirement
from eve_build.toolchain import try_locate_checkout
from tests.scaffold.helpers import NO_IDENTITY, FakeRunner, expected_scaffold, read_scaffold

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not on PATH")
FORCE_HINT = "pass --force to write the scaffold's files over same-named ones"


def test_writes_exactly_the_scaffold_then_builds(tmp_path: Path, build_calls: list[Path]) -> None:
    target = tmp_path / "demo"
    result = init_extension("demo", target, install=False, git=False)

    assert read_scaffold(target) == expected_scaffold()
    assert result.files == sorted(expected_scaffold())
    assert result.target == target.resolve()
    assert build_calls == [target.resolve()]
    assert result.steps == ["wrote 10 files", "built the extension (eve extension build)"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["demo"], "no staging folder is left"


def test_an_existing_empty_folder_is_fine(tmp_path: Path, build_calls: list[Path]) -> None:
    init_extension("demo", tmp_path, install=False, git=False)
    assert read_scaffold(tmp_path) == expected_scaffold()
    assert build_calls == [tmp_path.resolve()]


def test_a_non_empty_folder_is_refused_without_force(
    tmp_path: Path, build_calls: list[Path]
) -> None:
    (tmp_path / "notes.txt").write_text("mine\n")
    with pytest.raises(EveBuildError, match=r"is not empty$") as caught:
        init_extension("demo", tmp_path, install=False, git=False)
    assert caught.value.message == f"`{tmp_path.resolve()}` is not empty"
    assert caught.value.hint == FORCE_HINT
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]
    assert build_calls == []


def test_force_overwrites_scaffold_files_and_keeps_others(
    tmp_path: Path, build_calls: list[Path]
) -> None:
    (tmp_path / "notes.txt").write_text("mine\n")
    (tmp_path / "README.md").write_text("old readme\n")
    result = init_extension("demo", tmp_path, install=False, git=False, force=True)

    assert (tmp_path / "notes.txt").read_text() == "mine\n"
    files = read_scaffold(tmp_path)
    assert files.pop("notes.txt") == b"mine\n"
    assert files == expected_scaffold()
    assert "notes.txt" not in result.files
    assert len(build_calls) == 1


def test_force_writes_nothing_when_something_is_in_the_way(
    tmp_path: Path, build_calls: list[Path]
) -> None:
    (tmp_path / "extension").write_text("a file where a folder goes\n")
    (tmp_path / "README.md").write_text("old readme\n")
    with pytest.raises(EveBuildError, match=r"cannot write the scaffold: `extension` is a file"):
        init_extension("demo", tmp_path, install=False, git=False, force=True)
    assert (tmp_path / "README.md").read_text() == "old readme\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["README.md", "extension"]
    assert build_calls == []


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("Demo", "it has upper-case letters"),
        ("1demo", "it does not start with a letter"),
        ("-demo", "it does not start with a letter"),
        ("demo.ext", "it contains `.`; only letters, digits, `-` and `_` are allowed"),
        ("my demo", "it contains ` `; only letters, digits, `-` and `_` are allowed"),
        ("demo-", "it ends with `-` or `_`"),
        ("", "it is empty"),
        ("class", "its import name `class` is a Python keyword"),
        ("json", "its import name `json` would shadow the standard library"),
        ("eve-build", "its import name `eve_build` is reserved by eve-build"),
    ],
)
def test_bad_names_are_usage_errors(tmp_path: Path, name: str, problem: str) -> None:
    from eve_build.errors import UsageError

    with pytest.raises(UsageError) as caught:
        init_extension(name, tmp_path / "x", install=False, git=False)
    assert caught.value.message == f"`{name}` is not a valid extension name: {problem}"
    assert caught.value.hint.startswith(
        "use lower-case letters, digits, `-` and `_`, starting with a letter, for example `"
    )
    assert caught.value.exit_code == 2
    assert not (tmp_path / "x").exists()


def test_the_hint_suggests_a_valid_name(tmp_path: Path) -> None:
    with pytest.raises(EveBuildError) as caught:
        init_extension("My CRM", tmp_path / "x", install=False, git=False)
    assert caught.value.hint.endswith("for example `my-crm`")


@needs_git
def test_git_commits_with_a_fallback_identity(tmp_path: Path, build_calls: list[Path]) -> None:
    runner = FakeRunner(answers=dict(NO_IDENTITY))
    result = init_extension("demo", tmp_path, install=False, runner=runner)

    message = f"Scaffold demo with eve-build {__version__}"
    assert runner.argvs == [
        ["git", "rev-parse", "--is-inside-work-tree"],  # where the scaffold goes
        ["git", "config", "user.name"],  # its authors
        ["git", "config", "user.email"],
        ["git", "rev-parse", "--is-inside-work-tree"],
        ["git", "init", "-q"],
        ["git", "add", "-A"],
        ["git", "config", "user.name"],
        ["git", "config", "user.email"],
        [
            "git",
            "-c",
            "user.name=eve-build",
            "-c",
            "user.email=eve-build@localhost",
            "commit",
            "-q",
            "-m",
            message,
        ],
    ]
    assert {cwd for _, cwd in runner.calls} == {tmp_path.resolve()}
    assert result.steps[1:3] == ["git init", f"git commit: {message}"]
    assert len(build_calls) == 1


@needs_git
@pytest.mark.usefixtures("build_calls")
def test_git_uses_the_users_identity_when_configured(tmp_path: Path) -> None:
    answers = dict(NO_IDENTITY)
    answers[("git", "config", "user.name")] = (0, "Ada\n")
    answers[("git", "config", "user.email")] = (0, "ada@example.com\n")
    runner = FakeRunner(answers=answers)
    init_extension("demo", tmp_path, install=False, runner=runner)
    assert runner.argvs[-1] == [
        "git",
        "commit",
        "-q",
        "-m",
        f"Scaffold demo with eve-build {__version__}",
    ]


@needs_git
@pytest.mark.usefixtures("build_calls")
def test_git_is_skipped_inside_an_existing_work_tree(tmp_path: Path) -> None:
    runner = FakeRunner(answers={("git", "rev-parse", "--is-inside-work-tree"): (0, "true\n")})
    result = init_extension("demo", tmp_path, install=False, runner=runner)
    assert runner.argvs == [["git", "rev-parse", "--is-inside-work-tree"],
                            ["git", "config", "user.name"], ["git", "config", "user.email"],
                            ["git", "rev-parse", "--is-inside-work-tree"]]
    assert "skipped `git init`: the folder is already inside a git work tree" in result.steps
    assert ".github/workflows/ci.yml" not in result.files  # the enclosing repository's CI
    assert "pyproject.toml" in result.files


@needs_git
def test_a_failing_step_names_itself_and_shows_its_output(
    tmp_path: Path, build_calls: list[Path]
) -> None:
    answers = dict(NO_IDENTITY)
    answers[("git", "add", "-A")] = (1, "warning: something\n\nfatal: pathspec broke\n")
    with pytest.raises(EveBuildError) as caught:
        init_extension("demo", tmp_path, install=False, runner=FakeRunner(answers=answers))
    assert caught.value.message == (
        "`git add` failed (exit code 1): fatal: pathspec broke; its last output:\n"
        "  warning: something\n"
        "  fatal: pathspec broke"
    )
    assert (
        caught.value.hint
        == f"fix the cause, then run it by hand in `{tmp_path.resolve()}`: `git add -A`"
    )
    assert build_calls == []
    assert read_scaffold(tmp_path) == expected_scaffold(), "the written scaffold stays complete"


@pytest.mark.usefixtures("build_calls")
def test_install_creates_a_venv_with_this_eve_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(steps, "can_install_from_outside", lambda: True)
    monkeypatch.setattr(steps, "write_dependency_wheels", lambda directory: None)
    runner = FakeRunner()
    result = init_extension("demo", tmp_path, git=False, runner=runner)

    root = tmp_path.resolve()
    python = str(root / ".venv" / "bin" / "python")
    checkout = try_locate_checkout()
    assert checkout is not None, "these tests run from eve-build's source checkout"
    wheel = runner.calls[1][0][-5]  # built from the checkout by hatchling, in-process
    assert re.search(rf"eve-build-wheel-[^/]+/eve_build-{re.escape(__version__)}-py3-none-any"
                     r"\.whl$", wheel)
    pip = [sys.executable, "-m", "pip", "--python", python, "install", *PIP_QUIET]
    assert runner.calls == [
        ([sys.executable, "-m", "venv", "--without-pip", ".venv"], root),
        ([*pip, locate_pip_wheel(), wheel, derive_runtime_requirement(__version__),
          "pydantic>=2", "pytest>=8", "build>=1.2"], root),
        ([*pip, "--no-deps", "--no-build-isolation", "-e", "."], root),
    ]
    assert result.steps == [
        "wrote 10 files",
        "created .venv",
        f"installed eve-build {__version__} from its source checkout `{checkout}`",
        "installed demo editable, with its test extra",
        "built the extension (eve extension build)",
    ]
    assert result.next_steps == [
        f"cd {tmp_path}",
        ".venv/bin/python -m pytest",
        ".venv/bin/eve extension build",
    ]


@pytest.mark.usefixtures("build_calls")
def test_next_steps_without_install_set_up_the_venv(tmp_path: Path) -> None:
    result = init_extension("demo", tmp_path / "my demo", install=False, git=False)
    assert result.next_steps == [
        f"cd '{tmp_path / 'my demo'}'",
        "python -m venv .venv",
        f".venv/bin/python -m pip install {try_locate_checkout()}",
        '.venv/bin/python -m pip install --no-build-isolation -e ".[test]"',
        ".venv/bin/python -m pytest",
        ".venv/bin/eve extension build",
    ]
