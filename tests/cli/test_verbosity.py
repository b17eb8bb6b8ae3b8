"""`-q` hides progress, notes and warnings; `-v` adds detail; data on stdout is the same."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from typer.testing import CliRunner

from eve_build.cli import app
from tests.runtime.apps import compile_app, make_app, mount_file


def test_verbose_lists_the_written_files_and_quiet_the_same_data(
    copy_fixture: Callable[[str], Path],
) -> None:
    root = copy_fixture("extensions/gizmo")

    normal = CliRunner().invoke(app, ["extension", "build", "--path", str(root)])
    verbose = CliRunner().invoke(app, ["-v", "extension", "build", "--path", str(root)])
    quiet = CliRunner().invoke(app, ["-q", "extension", "build", "--path", str(root)])

    assert normal.stdout == verbose.stdout == quiet.stdout
    assert normal.stderr == quiet.stderr == ""
    assert "  wrote gizmo/tools/__init__.py" in verbose.stderr.splitlines()


def test_quiet_hides_progress_and_warnings_but_not_errors(tmp_path: Path) -> None:
    root = make_app(tmp_path / "app", ["acme-crm"], {
        "extensions/crm.py": mount_file("acme_crm", 'api_key=env("K"), regoin="us"')})
    compile_app(root)

    loud = CliRunner(env={"K": "k"}).invoke(
        app, ["call", "crm__search", '{"query": "ada"}', "--path", str(root)])
    quiet = CliRunner(env={"K": "k"}).invoke(
        app, ["-q", "call", "crm__search", '{"query": "ada"}', "--path", str(root)])
    warned = CliRunner().invoke(app, ["build", "--path", str(root)])
    built = CliRunner().invoke(app, ["-q", "build", "--path", str(root)])
    failed = CliRunner(env={"K": "k"}).invoke(
        app, ["-q", "call", "crm__nothing", "{}", "--path", str(root)])

    assert loud.stdout == quiet.stdout
    assert "progress: searching eu for 'ada'" in loud.stderr
    assert quiet.stderr == ""
    assert "warning mount/config-unknown-field" in warned.stderr
    assert built.exit_code == 0 and built.stderr == ""  # the same warning, hidden
    assert failed.exit_code == 1 and failed.stderr.startswith("error: ")
