"""The `serve` extra: starlette and uvicorn are installed only by those who serve."""

from __future__ import annotations

import importlib.util

from eve_build.install_hint import derive_extra_hint
from eve_build.serve.errors import serve_error

SERVE_MODULES = ("starlette", "uvicorn")


def require_serve_extra() -> None:
    """Raise a clear DiagnosticsError when starlette or uvicorn is not installed."""
    missing = [name for name in SERVE_MODULES if not _is_importable(name)]
    if missing:
        names = " and ".join(f"`{name}`" for name in missing)
        raise serve_error("serve/extra-missing",
                          f"serving needs {names}, which this environment lacks",
                          derive_extra_hint("serve"))


def _is_importable(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):  # a module set to None in sys.modules, or broken
        return False
