"""Class 1 (run time) and class 6 (results): every tool call ends, within a bound, as JSON."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from eve_build.runtime import Agent, load_agent
from eve_build.runtime.tools import TIMEOUT_VARIABLE, TOOL_TIMEOUT, derive_timeout
from eve_build.sdk import define_tool
from tests.reliability.agents import NON_JSON, make_misbehaving_agent


@pytest.fixture(scope="module")
def agent_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_misbehaving_agent(tmp_path_factory.mktemp("bounds") / "app")


@pytest.fixture
def agent(agent_root: Path) -> Iterator[Agent]:
    # The hooks here must succeed (none hangs): a budget no busy machine misses. The tools'
    # own 0.5 s timeouts are what these tests bound.
    with load_agent(agent_root, environ={}, hook_budget=60.0) as loaded:
        yield loaded


def test_a_sync_tool_that_never_returns_fails_after_its_timeout(agent: Agent) -> None:
    result = agent.call_tool("hang")
    assert (result.status, result.error) == (
        "failed", "`hang` did not finish within its 0.5 s timeout (set "
        "`define_tool(timeout=...)` to allow more)")


def test_an_async_tool_that_sleeps_forever_fails_after_its_timeout(agent: Agent) -> None:
    result = agent.call_tool("sleepy")
    assert result.status == "failed"
    assert result.error is not None and "within its 0.5 s timeout" in result.error


def test_a_hung_tool_does_not_hold_the_next_call(agent: Agent) -> None:
    assert agent.call_tool("hang").status == "failed"
    assert agent.call_tool("fine").value == {"ok": True}


def test_an_async_tool_raising_cancelled_error_fails_clearly(agent: Agent) -> None:
    result = agent.call_tool("cancelled")
    assert (result.status, result.error) == (
        "failed", "`cancelled` was cancelled (it raised CancelledError)")


def test_tools_without_a_timeout_get_the_default_or_the_variable(
        agent_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert derive_timeout(define_tool(description="x"), {}) == TOOL_TIMEOUT == 300.0
    assert derive_timeout(define_tool(description="x", timeout=2), {}) == 2.0
    assert derive_timeout(define_tool(description="x"), {TIMEOUT_VARIABLE: "0.25"}) == 0.25
    for wrong in ("", "soon", "-1", "nan", "inf"):
        assert derive_timeout(None, {TIMEOUT_VARIABLE: wrong}) == TOOL_TIMEOUT
    monkeypatch.setenv(TIMEOUT_VARIABLE, "0.3")
    with load_agent(agent_root, environ={}) as agent:
        result = agent.call_tool("hang_default")
    assert (result.status, result.error) == (
        "failed", "`hang_default` did not finish within its 0.3 s timeout (EVE_TOOL_TIMEOUT; "
        "set `define_tool(timeout=...)` to allow more)")


def test_an_exception_whose_str_raises_still_fails_the_call(agent: Agent) -> None:
    result = agent.call_tool("bad_str")
    assert (result.status, result.error) == (
        "failed", "Weird (its message cannot be shown: its __str__ raised)")


def test_a_hook_raising_an_unprintable_exception_blocks_with_a_reason(agent: Agent) -> None:
    result = agent.call_tool("fine", {"boom": True})
    assert result.status == "blocked"
    assert result.error == ("hook `strict` of the agent raised Weird (its message cannot be "
                            "shown: its __str__ raised)")


@pytest.mark.parametrize("name", sorted(NON_JSON))
def test_a_result_that_is_not_json_fails_the_call(agent: Agent, name: str) -> None:
    result = agent.call_tool(name)
    assert result.status == "failed"
    assert result.error is not None
    assert result.error.startswith(f"`{name}` returned a value that is not JSON: ")
    assert result.value is None
