"""Test an extension or an agent the way the runtime host runs it.

    from eve_build.testing import load_extension

    def test_search() -> None:
        with load_extension(".", api_key="k") as crm:
            assert crm.call("search", {"query": "ada"}).value["region"] == "eu"

The pytest plugin (`eve_build.testing.plugin`, registered as the `eve` pytest11
entry point) offers the same as the fixtures `eve_extension` and `eve_agent`.
The plugin is imported by every pytest session where eve-build is installed, and
importing it imports this package first, so the names below load lazily.

Layer 6 (serve, beside `dev` and `mcp`): may import `session`, both layer-4 sides, the
authored layer, formats and the foundation; never `serve`, `dev`, `mcp` or `cli`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from eve_build.testing.harness import (
        AgentHarness,
        ExtensionHarness,
        HarnessError,
        load_app,
        load_extension,
    )

__all__ = ["AgentHarness", "ExtensionHarness", "HarnessError", "load_app", "load_extension"]


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'eve_build.testing' has no attribute {name!r}")
    return getattr(importlib.import_module("eve_build.testing.harness"), name)


def __dir__() -> list[str]:
    return list(__all__)
