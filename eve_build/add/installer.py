"""Install into the agent project's environment: uv when the project uses it, else pip.

The project's environment is the `.venv` of the app root (or of the workspace root
holding it); without one, the interpreter running eve. The project uses uv when it
has a `uv.lock` (or a `[tool.uv]` table) and `uv` is on PATH; then `uv pip install
--python <venv python>`, else pip acting on that interpreter (`pip --python`).
Commands run through a seam (`Runner`), so tests can watch them.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from eve_build.consumer.workspace import try_find_workspace_root
from eve_build.project.pyproject import PYPROJECT
from eve_build.userfile import read_user_text

Runner = Callable[[Sequence[str], Path], subprocess.CompletedProcess[str]]
INSTALL_TIMEOUT = 600.0


@dataclass(frozen=True)
class ProjectEnvironment:
    python: Path
    uv: str | None  # the uv executable, when the project uses uv


def locate_environment(app_root: Path) -> ProjectEnvironment:
    roots = [app_root]
    workspace = try_find_workspace_root(app_root)
    if workspace is not None and workspace != app_root:
        roots.append(workspace)
    python = next((p for r in roots if (p := r / ".venv" / "bin" / "python").is_file()),
                  Path(sys.executable))
    uses_uv = any((r / "uv.lock").is_file() or "[tool.uv" in _text(r / PYPROJECT) for r in roots)
    return ProjectEnvironment(python=python, uv=shutil.which("uv") if uses_uv else None)


def derive_install_command(environment: ProjectEnvironment, arguments: Sequence[str]
                           ) -> list[str]:
    """The command installing `arguments` (pip-style) into the project's environment."""
    python = str(environment.python)
    if environment.uv is not None:
        return [environment.uv, "pip", "install", "--python", python, *arguments]
    if is_running_environment(environment.python):
        return [sys.executable, "-m", "pip", "install", *arguments]
    return [sys.executable, "-m", "pip", "--python", python, "install", *arguments]


def is_running_environment(python: Path) -> bool:
    """Is `python` the interpreter of the environment eve runs in? (A venv's python is a
    symlink to the base interpreter, so compare the environments, not the files.)"""
    return python.absolute().parent.parent.resolve() == Path(sys.prefix).resolve()


def run_command(argv: Sequence[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run `argv` with its output captured (stdout and stderr together), never raising."""
    try:
        return subprocess.run(list(argv), cwd=cwd, text=True, stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False,
                              timeout=INSTALL_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return subprocess.CompletedProcess(list(argv), 1, stdout=str(exc))


def _text(path: Path) -> str:
    try:
        return read_user_text(path, what="pyproject")
    except OSError:
        return ""
