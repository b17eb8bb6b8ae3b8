"""The agent, loaded the way `eve run` loads it, its tools called without a model.

The `eve_agent` fixture comes from eve-build's pytest plugin: it builds this project
(as `eve build` does), loads it and calls tools through the hook pipeline.
"""

from __future__ import annotations

from collections.abc import Callable

from eve_build.testing import AgentHarness


def test_greet(eve_agent: Callable[..., AgentHarness]) -> None:
    agent = eve_agent()
    result = agent.call("greet", {"name": "Ada"})
    assert result.ok, result.reason
    assert result.value == {"message": "Hello, Ada!"}
