"""The install command a hint prints: one that works in the environment eve runs in.

    derive_install_hint("build")  # ".venv/bin/python -m pip install build"

A venv made by uv has no pip, so `python -m pip install ...` fails there: with pip
importable the hint is the running interpreter's `-m pip install`; without it, `uv pip
install --python ...` when uv is on PATH, else `-m ensurepip` first. The interpreter is
the running one, relative to the current folder when inside it (`python` on PATH may
be another environment's).
"""

from __future__ import annotations

import importlib.util
import os
import shlex
import shutil
import sys
from pathlib import Path


def derive_install_hint(*requirements: str, python: str | None = None,
                        has_pip: bool | None = None, uv: str | None = None) -> str:
    """The shell line installing `requirements` into the running environment."""
    shown = python if python is not None else _shown(Path(sys.executable))
    wanted = shlex.join(requirements)
    if has_pip if has_pip is not None else importlib.util.find_spec("pip") is not None:
        return f"{shown} -m pip install {wanted}"
    if (uv if uv is not None else shutil.which("uv")) is not None:
        return f"uv pip install --python {shown} {wanted}"
    return f"{shown} -m ensurepip && {shown} -m pip install {wanted}"


def _shown(python: Path) -> str:
    try:
        relative = python.absolute().relative_to(Path.cwd())
    except ValueError:
        return shlex.quote(str(python))
    return shlex.quote(str(relative) if os.sep in str(relative) else f".{os.sep}{relative}")
