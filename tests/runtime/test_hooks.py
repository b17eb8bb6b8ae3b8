"""Hooks across extensions, as DESIGN.md section 6 says: order, rewrite, block, chains,
budgets, raising handlers, observers, and the trace that shows what happened."""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from eve_build.runtime import Agent
from tests.runtime.apps import mount_file

FIRST_HOOK = """\
    from eve_build.sdk import define_hook

    def on_call(event, ctx):
        return None

    hook = define_hook(events={"action.call": on_call})
    """
CHAIN = {
    "hooks/first.py": FIRST_HOOK,
    "extensions/a_rewrite.py": mount_file("hook_rewrite", 'field="text", suffix="!"'),
    "extensions/b_observe.py": mount_file("hook_observer"),
    "extensions/c_block.py": mount_file("hook_block", 'word="forbidden"'),
    "extensions/d_last.py": mount_file("hook_observer"),
}


@pytest.fixture
def chain(app: Callable[..., Path], load: Callable[..., Agent]) -> Agent:
    return load(app(["hook-rewrite", "hook-observer", "hook-block"], CHAIN))


def who(trace: tuple[dict[str, Any], ...]) -> list[tuple[str, str | None, str, str]]:
    return [(e["event"], e["mount"], e["hook"], e["outcome"]) for e in trace]


def test_rewrites_accumulate_and_the_first_block_wins(chain: Agent) -> None:
    result = chain.call_tool("b_observe__echo", {"text": "forbidden fruit"})
    assert (result.status, result.error) == (
        "blocked", "hook `gate` of mount `c_block`: `forbidden` is not allowed here")
    assert who(result.trace) == [
        ("action.call", None, "first", "proceed"),
        ("action.call", "a_rewrite", "suffix", "rewrite"),
        ("action.call", "b_observe", "watch", "proceed"),
        ("action.call", "c_block", "gate", "blocked"),
    ]  # d_last comes after the blocker: never asked
    rewrite = result.trace[1]
    assert (rewrite["before"], rewrite["after"]) == (
        {"text": "forbidden fruit"}, {"text": "forbidden fruit!"})
    assert result.trace[3]["reason"] == "`forbidden` is not allowed here"
    state = chain.snapshot()["state"]
    assert state["extensions/b_observe:seen"] == [{
        "event": "action.call", "tool": "b_observe__echo",
        "arguments": {"text": "forbidden fruit!"}}]  # the observer saw the rewrite
    assert "extensions/d_last:seen" not in state  # the last handler never ran


def test_a_call_that_passes_runs_with_the_rewritten_arguments_and_chained_results(
    chain: Agent,
) -> None:
    result = chain.call_tool("b_observe__echo", {"text": "hello"})
    assert result.status == "ok"
    assert result.value == {"text": "hello!", "times": 1, "seen": 1, "tags": ["a_rewrite"]}
    assert who(result.trace)[-4:] == [
        ("action.call", "d_last", "watch", "proceed"),
        ("action.result", "a_rewrite", "suffix", "transform"),
        ("action.result", "b_observe", "watch", "proceed"),
        ("action.result", "d_last", "watch", "proceed"),
    ]
    last_seen = chain.snapshot()["state"]["extensions/d_last:seen"]
    assert [entry["event"] for entry in last_seen] == ["action.call", "action.result"]
    assert last_seen[1]["result"]["tags"] == ["a_rewrite"]  # it saw the transformed result


def test_a_handled_message_stops_the_chain(chain: Agent) -> None:
    outcome = chain.fire("message.received", text="/help")
    assert (outcome.outcome, outcome.value) == ("handled", "handled by hook-block")
    assert who(outcome.trace) == [
        ("message.received", "a_rewrite", "suffix", "transform"),
        ("message.received", "b_observe", "watch", "proceed"),
        ("message.received", "c_block", "gate", "handled"),
    ]
    assert "extensions/d_last:seen" not in chain.snapshot()["state"]


def test_message_transforms_chain_to_the_end(chain: Agent) -> None:
    outcome = chain.fire("message.received", text="hi")
    assert (outcome.outcome, outcome.value) == ("transform", "hi!")
    seen = chain.snapshot()["state"]["extensions/d_last:seen"]
    assert seen == [{"event": "message.received", "text": "hi!"}]


def test_other_events_are_observed(chain: Agent) -> None:
    outcome = chain.fire("session.start", data={"user": "ada"})
    assert outcome.outcome == "observed"
    assert [e["mount"] for e in outcome.trace] == ["b_observe", "d_last"]
    assert chain.snapshot()["state"]["extensions/d_last:seen"] == [
        {"event": "session.start", "data": {"user": "ada"}}]


def test_rewritten_arguments_are_validated_again(
    app: Callable[..., Path], load: Callable[..., Agent]
) -> None:
    agent = load(app(["hook-rewrite", "hook-observer"], {
        "extensions/a_rewrite.py": mount_file("hook_rewrite", 'extra={"times": "many"}'),
        "extensions/echo.py": mount_file("hook_observer"),
    }))
    result = agent.call_tool("echo__echo", {"text": "hi"})
    assert (result.status, result.error) == (
        "failed", "after the rewrite by hook `suffix` of mount `a_rewrite`: invalid arguments: "
        "`times`: Input should be a valid integer, unable to parse string as an integer")


@pytest.fixture
def release_slow_hooks(load: Callable[..., Agent]) -> Iterator[None]:
    """Let the hung handlers of hook-slow go when the test ends (before its agents close)."""
    yield
    gate = sys.modules.get("hook_slow.extension.lib.gate")
    if gate is not None:
        gate.RELEASE.set()


@pytest.mark.usefixtures("release_slow_hooks")
@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
def test_a_handler_past_its_budget_blocks_and_never_stalls_later_calls(
    app: Callable[..., Path], load: Callable[..., Agent], asynchronous: bool,
) -> None:
    agent = load(app(["hook-slow", "hook-observer"], {
        "extensions/a_watch.py": mount_file("hook_observer"),  # a sync handler before them
        "extensions/slow.py": mount_file("hook_slow", f"asynchronous={asynchronous}"),
        "extensions/z_watch.py": mount_file("hook_observer"),
    }))
    hung = "nap" if asynchronous else "sleep"
    for _ in range(3):  # each handler gets a thread or task of its own: none queues
        result = agent.call_tool("z_watch__echo", {"text": "hi"})
        assert (result.status, result.error) == (
            "blocked", f"hook `{hung}` of mount `slow` did not return within its 0.2 s budget")
        assert who(result.trace)[0] == ("action.call", "a_watch", "watch", "proceed")
        assert who(result.trace)[-1] == ("action.call", "slow", hung, "timeout")
    state = agent.snapshot()["state"]
    assert len(state["extensions/a_watch:seen"]) == 3
    assert "extensions/z_watch:seen" not in state


class SteppingClock:
    """`time` as eve_build.runtime.handlers reads it, with a `perf_counter` the test drives:
    each reading is `step` seconds after the one before, whatever the real time."""

    def __init__(self, step: float) -> None:
        self.step, self.now = step, 0.0

    def perf_counter(self) -> float:
        self.now += self.step
        return self.now


@pytest.mark.usefixtures("release_slow_hooks")
@pytest.mark.parametrize(("step", "warned"), [(60.0, True), (40.0, False)])
def test_a_handler_over_half_its_budget_gets_a_warning(
    app: Callable[..., Path], load: Callable[..., Agent], caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch, step: float, warned: bool,
) -> None:
    from eve_build.runtime import handlers

    # Each handler is measured as taking `step` s of its 100 s budget (a driven clock: the
    # real budget timer stays 100 s, which the instant handlers never come near).
    agent = load(app(["hook-slow", "hook-observer"], {
        "extensions/slow.py": mount_file("hook_slow", "seconds=0"),
        "extensions/watch.py": mount_file("hook_observer"),
    }), hook_budget=100.0)
    monkeypatch.setattr(handlers, "time", SteppingClock(step))
    with caplog.at_level(logging.WARNING, logger="eve_build.runtime"):
        result = agent.call_tool("watch__echo", {"text": "hi"})
    assert result.status == "ok"
    sleep = next(e for e in result.trace if e["hook"] == "sleep")
    assert (sleep["outcome"], sleep["seconds"]) == ("proceed", step)
    if not warned:
        assert "warning" not in sleep
        return
    assert sleep["warning"] == (f"hook `sleep` of mount `slow` took {step:.2f} s on "
                                "`action.call`, more than half of its 100 s budget")
    assert sleep["warning"] in [r.getMessage() for r in caplog.records]
    assert sleep["warning"] in caplog.messages


def test_a_raising_call_handler_blocks_with_its_message(
    app: Callable[..., Path], load: Callable[..., Agent]
) -> None:
    agent = load(app(["hook-raise", "hook-observer"], {
        "extensions/boom.py": mount_file("hook_raise"),
        "extensions/watch.py": mount_file("hook_observer"),
    }))
    result = agent.call_tool("watch__echo", {"text": "hi"})
    assert (result.status, result.error) == (
        "blocked", "hook `boom` of mount `boom` raised RuntimeError: action.call hook is down")
    assert who(result.trace) == [("action.call", "boom", "boom", "error")]


def test_raising_result_handlers_and_observers_never_break_anything(
    app: Callable[..., Path], load: Callable[..., Agent], caplog: pytest.LogCaptureFixture,
) -> None:
    agent = load(app(["hook-raise", "hook-observer"], {
        "extensions/boom.py": mount_file(
            "hook_raise", 'events=["action.result", "turn.start", "message.received"]'),
        "extensions/watch.py": mount_file("hook_observer"),
    }))
    with caplog.at_level(logging.WARNING, logger="eve_build.runtime"):
        result = agent.call_tool("watch__echo", {"text": "hi"})
        turn = agent.fire("turn.start")
        message = agent.fire("message.received", text="hello")
    assert (result.status, result.value) == ("ok", {"text": "hi", "times": 1, "seen": 1})
    assert ("action.result", "boom", "boom", "error") in who(result.trace)
    assert turn.outcome == "observed"
    assert who(turn.trace) == [("turn.start", "boom", "boom", "error"),
                               ("turn.start", "watch", "watch", "proceed")]
    assert (message.outcome, message.value) == ("proceed", "hello")
    assert "hook `boom` of mount `boom` raised RuntimeError: turn.start hook is down" in (
        caplog.messages)


def test_an_unexpected_return_value_blocks_the_call(
    app: Callable[..., Path], load: Callable[..., Agent]
) -> None:
    agent = load(app(["hook-observer"], {
        "extensions/watch.py": mount_file("hook_observer"),
        "hooks/odd.py": FIRST_HOOK.replace("return None", "return 42"),
    }))
    result = agent.call_tool("watch__echo", {"text": "hi"})
    assert (result.status, result.error) == (
        "blocked", "hook `odd` of the agent returned int; it may return None, "
                   "rewrite(arguments) or block(reason)")
    assert who(result.trace) == [("action.call", None, "odd", "error")]
