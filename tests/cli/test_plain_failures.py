"""Failures a new user meets on the first day, each said plainly (issue 19, item 3):
`eve dev` without the serve extra, a schedule whose mount lacks an env variable, and a
reader that closes the pipe (`eve info | head -1`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from eve_build.cli import app
from tests.runtime.apps import compile_app, make_app, mount_file

WITHOUT_SERVE = (
    "import sys\n"
    "sys.modules['starlette'] = None\n"  # as if the serve extra were not installed
    "sys.modules['uvicorn'] = None\n"
    "from eve_build.cli import main\n"
    "sys.argv = ['eve', *sys.argv[1:]]\n"
    "main()\n"
)


def _crm_app(tmp_path: Path) -> Path:
    root = make_app(tmp_path / "app", ["acme-crm"], {
        "extensions/crm.py": mount_file("acme_crm", 'api_key=env("CRM_API_KEY"), region="us"')})
    compile_app(root)
    return root


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "CRM_API_KEY"}
    return {**env, "NO_COLOR": "1", "EVE_HOME": str(tmp_path / "home")}


def test_dev_without_the_serve_extra_says_which_extra_to_install(tmp_path: Path) -> None:
    root = make_app(tmp_path / "app", ["gizmo"], {"extensions/gizmo.py": mount_file("gizmo")})
    done = subprocess.run([sys.executable, "-c", WITHOUT_SERVE, "dev", "--path", str(root)],
                          capture_output=True, text=True, env=_env(tmp_path), timeout=120)

    assert done.returncode == 1
    assert "error serve/extra-missing: serving needs `starlette` and `uvicorn`" in done.stderr
    assert "-m pip install 'httpx>=0.27' 'starlette>=0.37' 'uvicorn>=0.30'" in done.stderr
    assert "internal/unexpected" not in done.stderr and "Traceback" not in done.stderr
    assert not (root / ".eve").exists()  # refused before the first build


def test_schedule_run_names_the_unset_variable(tmp_path: Path) -> None:
    root = _crm_app(tmp_path)

    result = CliRunner(env={"NO_COLOR": "1"}).invoke(
        app, ["schedule", "run", "crm__sync", "--path", str(root)], env={"CRM_API_KEY": None})

    assert result.exit_code == 1
    assert result.stderr.splitlines()[-1] == (
        "error: schedule `crm__sync` failed: `crm__sync` cannot run: the mount "
        "`agent/extensions/crm.py` is unavailable: config field `api_key` reads "
        'env("CRM_API_KEY"), which is not set')
    assert "UnboundError" not in result.output


def _run_into_closed_pipe(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The command with a stdout whose reader has already gone (`| head -0`, every time)."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run([sys.executable, "-m", "eve_build", *args], stdout=write,
                              stderr=subprocess.PIPE, text=True, env=_env(tmp_path),
                              timeout=120)
    finally:
        os.close(write)


def test_a_closed_pipe_ends_the_command_quietly_with_141(tmp_path: Path) -> None:
    root = _crm_app(tmp_path)

    for args in (("info", "--path", str(root)), ("info", "--json", "--path", str(root)),
                 ("schedules", "--path", str(root))):
        done = _run_into_closed_pipe(tmp_path, *args)
        assert (done.returncode, done.stderr) == (141, ""), args


def test_init_into_a_non_empty_folder_fails_before_it_prints_anything(tmp_path: Path) -> None:
    target = tmp_path / "wx-alerts"
    target.mkdir()
    (target / "notes.txt").write_text("mine")

    result = CliRunner(env={"NO_COLOR": "1"}).invoke(
        app, ["extension", "init", "wx-alerts", "--dir", str(target), "--no-install"])

    assert result.exit_code == 1
    assert "Creating" not in result.output
    assert result.stderr.splitlines()[0] == f"error: `{target.resolve()}` is not empty"
    assert sorted(p.name for p in target.iterdir()) == ["notes.txt"]


def test_quiet_and_verbose_work_after_the_command_too(tmp_path: Path) -> None:
    root = make_app(tmp_path / "app", ["gizmo"], {"extensions/gizmo.py": mount_file("gizmo")})
    gizmo = root / "extensions" / "gizmo"

    verbose = CliRunner().invoke(app, ["extension", "build", "--path", str(gizmo), "-v"])
    quiet = CliRunner().invoke(app, ["build", "--path", str(root), "-q"])
    both = CliRunner().invoke(app, ["-q", "build", "--path", str(root), "--verbose"])

    assert verbose.exit_code == 0 and "  wrote gizmo/__init__.py" in verbose.stderr
    assert quiet.exit_code == 0 and quiet.stderr == ""
    assert both.exit_code == 2 and "use one of --quiet and --verbose" in both.stderr
