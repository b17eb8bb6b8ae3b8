"""Events: the host emits section 7 events; observers never change an outcome."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

import pytest

from eve_build.local import LoadRequest, LocalSession, ScriptSource
from eve_build.runtime import Agent
from eve_build.runtime.workers import shared_pool
from tests.local.conftest import place


def notices(agent: Agent) -> list[str]:
    assert agent.local is not None
    return [n.text for n in agent.local.request.session.drain()[0]]


def test_a_call_emits_start_updates_and_end(app: Path, global_dir: Path,
                                            load: Callable[..., Agent]) -> None:
    place(global_dir, "notes.py")
    agent = load(app)
    agent.call_tool("note", {"text": "one"})
    assert notices(agent) == ["saw agent.start", "saw tool.start note", "saw tool.update note",
                              "saw tool.end note"]


def test_a_packaged_hook_can_subscribe_to_the_same_names(
        app: Path, load: Callable[..., Agent]) -> None:
    agent = load(app)
    agent.call_tool("gizmo__spin", {"times": 1})
    assert agent.state("seen") == [["agent.start", None], ["tool.start", "gizmo__spin"],
                                   ["tool.end", "gizmo__spin"]]


def test_a_failing_observer_is_logged_with_its_name_and_changes_nothing(
        app: Path, global_dir: Path, load: Callable[..., Agent],
        caplog: pytest.LogCaptureFixture) -> None:
    place(global_dir, "observer-raises.py")
    with caplog.at_level(logging.WARNING, logger="eve_build.runtime"):
        agent = load(app)
        result = agent.call_tool("ping", {"text": "ok"})
    assert (result.status, result.value) == ("ok", {"pong": "ok"})
    assert [step["hook"] for step in result.trace] == ["guard"]  # no observer in the trace
    logged = [r.getMessage() for r in caplog.records]
    assert logged.count("local extension `observer-raises` raised RuntimeError: observer "
                        "broke") == 3  # agent.start, tool.start, tool.end


def test_an_extension_over_its_budget_is_dropped(tmp_path: Path, eve_home: Path) -> None:
    # The default 5 s budget (each extension gets its own): `notes` imports and sets up in
    # milliseconds, well inside it on any machine; `slow-setup` waits 30 s.
    place(eve_home / "extensions", "slow-setup.py", "notes.py")
    request = LoadRequest(project_root=tmp_path, eve_home=eve_home, states={},
                          session=LocalSession(), pool=shared_pool(), budget=5.0)
    source = ScriptSource()
    records = {r.name: r for r in source.load(request)}
    source.close()
    slow = records["slow-setup"]
    assert (slow.status, [(d.code, d.message) for d in slow.diagnostics]) == ("dropped", [(
        "local/timeout", "`slow-setup` did not finish importing and `setup` within 5 s; it "
        "is not loaded")])
    assert records["notes"].status == "loaded"


def test_message_events_reach_observers_in_order(app: Path, global_dir: Path,
                                                 load: Callable[..., Agent]) -> None:
    from eve_build.local.messages import handle_message

    place(global_dir, "greeter.py")
    agent = load(app)
    notices(agent)
    assert handle_message(agent, "hi", app).outcome == "handled"
    assert notices(agent) == ["message.start", "message.end"]
    assert handle_message(agent, "tell me", app).outcome == "turn"
    assert notices(agent) == ["message.start", "turn.start", "turn.end", "message.end"]
