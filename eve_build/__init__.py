"""eve-build: the Python toolchain for eve extensions.

The public surface is kept narrow. Heavy modules are imported lazily so that
`eve --help` starts fast; `from eve_build import build_extension` still works.
"""

from __future__ import annotations

from typing import Any

from eve_build._version import __version__

__all__ = [
    "Diagnostic",
    "DiagnosticsError",
    "EveBuildError",
    "Severity",
    "__version__",
    "build_extension",
]

_LAZY = {
    "Diagnostic": "eve_build.diagnostics",
    "Severity": "eve_build.diagnostics",
    "DiagnosticsError": "eve_build.errors",
    "EveBuildError": "eve_build.errors",
    "build_extension": "eve_build.extension.build",
}


def __getattr__(name: str) -> Any:
    module_name = _LAZY.get(name)
    if module_name is None:
        raise AttributeError(f"module 'eve_build' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module_name), name)


def __dir__() -> list[str]:
    return list(__all__)
