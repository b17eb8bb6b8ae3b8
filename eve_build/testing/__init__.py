"""Test an extension or an agent the way the runtime host runs it.

    from eve_build.testing import load_extension

    def test_search() -> None:
        with load_extension(".", api_key="k") as crm:
            assert crm.call("search", {"query": "ada"}).value["region"] == "eu"

The pytest plugin (`eve_build.testing.plugin`, registered as the `eve` pytest11
entry point) offers the same as the fixtures `eve_extension` and `eve_agent`.
"""

from __future__ import annotations

from eve_build.testing.harness import (
    AgentHarness,
    ExtensionHarness,
    HarnessError,
    load_app,
    load_extension,
)

__all__ = ["AgentHarness", "ExtensionHarness", "HarnessError", "load_app", "load_extension"]


def __dir__() -> list[str]:
    return list(__all__)
