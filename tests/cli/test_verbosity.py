"""`-q` hides progress, notes and warnings; `-v` adds detail; data on stdout is the same."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from typer.testing import CliRunner

from eve_build.cli import app
from tests.runtime.apps import compile_app, make_app, mount_file


def test_verbose_lists_the_written_files_and_quiet_prints_nothing(
    copy_fixture: Callable[[str], Path],
) -> None:
    root = copy_fixture("extensions/gizmo")

    normal = CliRunner().invoke(app, ["extension", "build", "--path", str(root)])
    verbose = CliRunner().invoke(app, ["-v", "extension", "build", "--path", str(root)])
    quiet = CliRunner().invoke(app, ["-q", "extension", "build", "--path", str(root)])

    assert normal.stdout == verbose.stdout != ""
    assert (quiet.exit_code, quiet.stdout) == (0, "")  # the summary is for people
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


def test_eve_build_quiet_prints_nothing_on_success_and_still_errors(tmp_path: Path) -> None:
    """`eve build -q` (typer), `eve -q build` (the fast path) and `--path` forms: empty
    stdout and stderr on success; a failed build still says why."""
    import os
    import subprocess
    import sys

    root = make_app(tmp_path / "app", ["gizmo"], {"extensions/gizmo.py": mount_file("gizmo")})
    env = {**os.environ, "EVE_HOME": str(tmp_path / "home"), "NO_COLOR": "1"}

    def eve(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "eve_build", *args], cwd=root, env=env,
                              capture_output=True, text=True, timeout=300, check=False)

    loud = eve("build")
    assert loud.returncode == 0, loud.stderr
    assert "Built the agent" in loud.stdout
    for args in (["build", "-q"], ["-q", "build"], ["build", "--quiet", "--path", "."],
                 ["-q", "build", "--no-cache"]):
        quiet = eve(*args)
        assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, "", ""), args

    (root / "agent/extensions/gizmo.py").write_text(mount_file("gizmo", "nothing=1"))
    for args in (["build", "-q"], ["-q", "build"]):
        failed = eve(*args)
        assert failed.returncode == 1, args
        assert failed.stdout == ""
        assert "gizmo.py:4: error " in failed.stderr and "nothing" in failed.stderr, args
