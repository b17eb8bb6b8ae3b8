"""A node's own environment: `<project>/.venv`, made with uv when it is on PATH.

eve-build is not on PyPI, so the running eve-build goes in first (its source
checkout, else a wheel re-packed from its installed files, as `eve extension init`
does); then the project, editable, which brings its own dependencies. A stamp in the
venv records what was installed, so starting an installed node installs nothing.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import sys
import tempfile
from pathlib import Path

from eve_build._version import __version__
from eve_build.diagnostics import error
from eve_build.errors import DiagnosticsError
from eve_build.process import Runner

STAMP = ".eve-node-installed"
KEY_LINE = re.compile("^\\s*((?i:error|cause):|\u00d7|\u2570\u2500\u25b6)\\s*(?P<text>.+)$")


def derive_install_key(project: Path) -> str:
    """What an install depends on: the project's pyproject.toml and this eve-build."""
    digest = hashlib.sha256((project / "pyproject.toml").read_bytes())
    digest.update(f"\0eve-build {__version__}".encode())
    return digest.hexdigest()


def ensure_environment(project: Path, name: str, runner: Runner) -> tuple[Path, list[str]]:
    """The venv's python, creating and installing what is missing; and the steps done."""
    python = project / ".venv" / "bin" / "python"
    key = derive_install_key(project)
    stamp = project / ".venv" / STAMP
    if python.exists() and stamp.is_file() and stamp.read_text(encoding="utf-8") == key:
        return python, []
    # only an install needs the toolchain helpers (zipfile, csv, packaging)
    from eve_build.toolchain import try_locate_checkout, write_installed_wheel

    uv = shutil.which("uv")
    steps: list[str] = []
    if not python.exists():
        create = ([uv, "venv", "-q", "--python", sys.executable, ".venv"] if uv
                  else [sys.executable, "-m", "venv", ".venv"])
        _run(runner, name, project, "creating `.venv`", create)
        steps.append(f"created .venv with {'uv' if uv else 'venv'}")
    install = ([uv, "pip", "install", "-q", "--python", str(python)] if uv
               else [str(python), "-m", "pip", "install", "-q"])
    checkout = try_locate_checkout()
    with tempfile.TemporaryDirectory(prefix="eve-node-wheel-") as scratch:
        source = str(checkout) if checkout else str(write_installed_wheel(Path(scratch)))
        _run(runner, name, project, "installing eve-build", [*install, source])
    _run(runner, name, project, f"installing `{name}`", [*install, "-e", "."])
    steps.append(f"installed eve-build {__version__} and {name} with {'uv' if uv else 'pip'}")
    stamp.write_text(key, encoding="utf-8")
    return python, steps


def find_key_line(output: str) -> str:
    """The line of an installer's output that says what went wrong (the last error line)."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    flagged = [m.group("text") for line in lines if (m := KEY_LINE.match(line))]
    if flagged:
        return flagged[-1]
    return lines[-1] if lines else "(no output)"


def _run(runner: Runner, name: str, project: Path, step: str, argv: list[str]) -> None:
    code, output = runner(argv, project)
    if code != 0:
        raise DiagnosticsError(f"cannot start node `{name}`", [error(
            "node/install-failed", str(project / "pyproject.toml"),
            f"{step} failed: {find_key_line(output)}",
            "fix the project's dependencies, then run `eve node start` again "
            "(the full output: run the same step by hand in the project)")])
