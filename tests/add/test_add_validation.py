"""`eve add` validates before it touches anything (issue 23 item 21): a string
`[project].dependencies` is never replaced, and an over-long `--as` stops the add
before the target is built, read or installed."""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from pathlib import Path

import pytest

from eve_build.add.dependencies import DependenciesNotListError, derive_pyproject_text
from eve_build.add.extension import add_extension
from eve_build.errors import DiagnosticsError
from tests.conftest import FIXTURES, copy_fixture_tree

Calls = list[list[str]]


def _snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file()}


def _refused(project: Path, target: str, namespace: str | None = None
             ) -> tuple[str, str, str, str, Calls]:
    calls: Calls = []

    def runner(argv: Sequence[str], cwd: Path) -> subprocess.CompletedProcess[str]:
        calls.append(list(argv))
        return subprocess.CompletedProcess(list(argv), 0, stdout="")

    before = _snapshot(project)
    with pytest.raises(DiagnosticsError) as caught:
        add_extension(project, target, namespace, runner=runner)
    assert _snapshot(project) == before
    [problem] = caught.value.diagnostics
    return problem.code, problem.file, problem.message, problem.hint, calls


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return copy_fixture_tree(FIXTURES / "apps" / "installed", tmp_path / "agent-project")


@pytest.fixture
def gizmo(tmp_path: Path) -> Path:
    return copy_fixture_tree(FIXTURES / "extensions" / "gizmo", tmp_path / "gizmo")


def test_dependencies_given_as_a_string_are_refused_not_replaced(
        project: Path, gizmo: Path) -> None:
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace(
        'dependencies = ["eve-build", "gizmo"]', 'dependencies = "eve-build"'))

    code, file, message, hint, calls = _refused(project, str(gizmo), "spinner")

    assert (code, file) == ("add/project-invalid", "pyproject.toml")
    assert message.startswith("`[project].dependencies` is a str, not a list of requirements")
    assert 'dependencies = ["acme-crm"]' in hint and "nothing was changed" in hint
    assert calls == []  # refused before the install


def test_a_200_character_namespace_is_refused_before_the_target_is_built(
        project: Path, gizmo: Path) -> None:
    code, file, message, _, calls = _refused(project, str(gizmo), "n" * 200)

    assert code == "add/namespace-invalid"
    assert file == f"agent/extensions/{'n' * 40}.py"
    assert "has 200 characters; a namespace may have at most 61" in message
    assert len(message) < 300
    assert calls == []
    assert not (gizmo / "build").exists()  # the folder target was not even built


def test_a_namespace_too_long_for_the_tool_names_is_refused_before_the_install(
        project: Path, gizmo: Path) -> None:
    namespace = "n" * 60  # + "__spin" = 66 characters

    code, _, message, _, calls = _refused(project, str(gizmo), namespace)

    assert code == "add/namespace-invalid"
    assert f"the tool `spin` would be `{namespace}__spin`, 66 characters" in message
    assert calls == []


@pytest.mark.parametrize(("text", "message"), [
    ('[project]\ndependencies = "x"\n', "`[project].dependencies` is a str, not a list of "
     "requirements: adding to it would drop what it holds"),
    ('project = "x"\n', "`project` is a str, not the `[project]` table: adding a dependency "
     "would replace it"),
    ("[project]\ndependencies = {a = 1}\n", "`[project].dependencies` is a dict, not a list "
     "of requirements: adding to it would drop what it holds"),
])
def test_derive_pyproject_text_never_replaces_what_is_not_a_list(text: str,
                                                                 message: str) -> None:
    with pytest.raises(DependenciesNotListError) as caught:
        derive_pyproject_text(text, "acme-crm")
    assert str(caught.value) == message


def test_dependencies_that_are_not_strings_are_refused_not_appended(
        project: Path, gizmo: Path) -> None:
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace(
        'dependencies = ["eve-build", "gizmo"]', "dependencies = [1, 2]"))

    code, file, message, hint, calls = _refused(project, str(gizmo), "spinner")

    assert (code, file) == ("add/project-invalid", "pyproject.toml")
    assert message.startswith("`[project].dependencies` holds `1` (int), not a "
                              "requirement string"), message
    assert "nothing was changed" in hint
    assert calls == []  # refused before the install


def test_an_immutable_pyproject_after_the_install_is_a_diagnostic_and_put_back(
        project: Path, gizmo: Path) -> None:
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace(
        'dependencies = ["eve-build", "gizmo"]', 'dependencies = ["eve-build"]'))
    if subprocess.run(["chattr", "+i", str(pyproject)], capture_output=True,
                      check=False).returncode != 0:
        pytest.skip("chattr +i is not available here")
    try:
        code, file, message, hint, calls = _refused(project, str(gizmo), "spinner")
    finally:
        subprocess.run(["chattr", "-i", str(pyproject)], check=True)

    assert (code, file) == ("add/write-failed", "pyproject.toml")
    assert "Operation not permitted" in message and "the install was undone" in hint
    assert any("install" in argv for argv in calls)  # the install had run
    assert not (project / "agent/extensions/spinner.py").exists()


def test_invalid_toml_names_its_line(project: Path, gizmo: Path) -> None:
    pyproject = project / "pyproject.toml"
    lines = pyproject.read_text().splitlines()
    lines.insert(2, 'broken = "unclosed')
    pyproject.write_text("\n".join(lines) + "\n")

    with pytest.raises(DiagnosticsError) as caught:
        add_extension(project, str(gizmo), "spinner",
                      runner=lambda argv, cwd: subprocess.CompletedProcess(argv, 0, stdout=""))

    [problem] = caught.value.diagnostics
    assert (problem.code, problem.file, problem.line) == (
        "add/project-invalid", "pyproject.toml", 3)
    assert problem.render().startswith("pyproject.toml:3: error add/project-invalid: ")
