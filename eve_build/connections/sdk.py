"""The official MCP SDK is an extra (`eve-build[mcp]`): one check, one clear error."""

from __future__ import annotations

import importlib

from eve_build.diagnostics import error
from eve_build.errors import DiagnosticsError
from eve_build.install_hint import derive_extra_hint


def require_sdk(feature: str) -> None:
    """Raise a DiagnosticsError naming the extra when the `mcp` package cannot be imported."""
    try:
        importlib.import_module("mcp")
    except ImportError:
        found = [error("mcp/sdk-missing", "pyproject.toml",
                       f"{feature} needs the MCP SDK (`mcp`), which is not installed",
                       derive_extra_hint("mcp"))]
        raise DiagnosticsError(f"cannot start {feature}", found) from None
