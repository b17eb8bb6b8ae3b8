"""Messages that read as written English (issue 19's wording list)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from eve_build.cli import app
from eve_build.consumer.build import build_agent
from eve_build.errors import DiagnosticsError, describe_syntax_error
from eve_build.mcp.connection_report import describe_connections
from tests.runtime.apps import compile_app, make_app, mount_file


def test_python_s_bare_invalid_syntax_is_said_once(tmp_path: Path) -> None:
    assert describe_syntax_error(SyntaxError("invalid syntax")) == "invalid syntax"
    assert describe_syntax_error(SyntaxError("'(' was never closed")) == \
        "invalid syntax: '(' was never closed"
    root = make_app(tmp_path / "app", ["gizmo"], {"extensions/gizmo.py": "mount = = gizmo\n"})

    with pytest.raises(DiagnosticsError) as caught:
        build_agent(root)

    [problem] = [d for d in caught.value.diagnostics if d.code == "load/syntax-error"]
    assert (problem.file, problem.line, problem.message) == (
        "agent/extensions/gizmo.py", 1, "invalid syntax")


def test_a_connection_missing_its_variable_says_which_and_that_it_is_not_set(
        tmp_path: Path) -> None:
    root = make_app(tmp_path / "app", ["acme-crm"], {
        "extensions/crm.py": mount_file("acme_crm", 'api_key="k", region="us"')})
    compile_app(root)

    data = describe_connections(root, environ={})

    [problem] = [d for d in data["diagnostics"]["items"] if d["code"] == "connection/env-missing"]
    assert problem["message"] == ("the connection `crm__api` needs the environment variable "
                                  "`CRM_API_KEY`, which is not set")


def test_one_error_and_one_file_are_singular(tmp_path: Path) -> None:
    root = make_app(tmp_path / "app", ["gizmo"], {"extensions/gizmo.py": "mount = = gizmo\n"})
    info = CliRunner().invoke(app, ["info", "--path", str(root)])
    assert "diagnostics: 1 error, 0 warnings" in info.stdout.splitlines()

    (root / ".eve" / "extensions").mkdir(parents=True)
    (root / ".eve" / "extensions" / "notes.py").write_text("def setup(ctx):\n    pass\n")
    trusted = CliRunner().invoke(app, ["trust", "--yes", "--path", str(root)])
    assert trusted.exit_code == 0, trusted.output
    assert "Trusted `.eve/extensions` (1 file, sha256:" in trusted.stdout


OUTPUT_TOOL = """\
from pydantic import BaseModel

from eve_build.sdk import define_tool


class Empty(BaseModel):
    pass


class Forecast(BaseModel):
    summary: str


def execute(input: Empty, ctx):
    return "sunny"  # not a Forecast


tool = define_tool(description="Forecast.", input=Empty, output=Forecast, execute=execute)
"""


def test_an_output_model_mismatch_is_not_labelled_arguments(tmp_path: Path) -> None:
    root = make_app(tmp_path / "app", ["gizmo"], {"extensions/gizmo.py": mount_file("gizmo"),
                                                  "tools/forecast.py": OUTPUT_TOOL})
    compile_app(root)

    called = CliRunner().invoke(app, ["call", "forecast", "{}", "--path", str(root)])

    assert called.exit_code == 1
    assert ("`forecast` returned a value that does not match its output model: "
            "`(the returned value)`: Input should be a valid dictionary") in called.stderr
    assert "(arguments)" not in called.stderr


def test_a_dynamic_version_is_diagnosed_as_such(copy_fixture: Callable[[str], Path]) -> None:
    from eve_build.extension.build import build_extension

    root = copy_fixture("extensions/gizmo")
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('version = "1.0.0"',
                                                       'dynamic = ["version"]'))

    with pytest.raises(DiagnosticsError) as caught:
        build_extension(root)

    [problem] = caught.value.diagnostics
    assert (problem.code, problem.file, problem.line) == (
        "project/version-dynamic", "pyproject.toml", 7)
    assert problem.message.startswith('`[project].version` is dynamic (`dynamic = ["version"]`)')
    assert problem.hint.startswith('write the version itself: `version = "0.1.0"`')
