"""Definitions' functions are checked against how the host calls them."""

from __future__ import annotations

from typing import Any

import pytest

from eve_build.load.checks import Where
from eve_build.load.signatures import find_signature_problems, find_unknown_argument
from eve_build.sdk import (
    define_channel,
    define_dynamic,
    define_hook,
    define_instructions,
    define_schedule,
    define_tool,
)

WHERE = Where("extension/tools/x.py", 7)


def _two(a: Any, b: Any) -> None: ...
def _one(a: Any) -> None: ...
def _none() -> None: ...
def _flexible(*args: Any, **kwargs: Any) -> None: ...
def _defaulted(a: Any, b: Any = None, c: Any = None) -> None: ...


@pytest.mark.parametrize(("definition", "fine"), [
    (define_tool(description="d", execute=_two), True),
    (define_tool(description="d", execute=_one), False),
    (define_tool(description="d", execute=_flexible), True),
    (define_tool(description="d", execute=_defaulted), True),
    (define_tool(description="d", execute=lambda input, ctx, extra: None), False),
    (define_channel(route="/x", handle=_two), True),
    (define_channel(route="/x", handle=_none), False),
    (define_schedule(cron="@hourly", run=_one), True),
    (define_schedule(cron="@hourly", run=_two), False),
    (define_dynamic(resolve=_one), True),
    (define_dynamic(resolve=_none), False),
    (define_instructions(render=_one), True),
    (define_instructions(render=_two), False),
    (define_hook(events={"action.call": _two}), True),
    (define_hook(events={"action.call": _one, "*": _two}), False),
])
def test_each_host_call_is_checked(definition: object, fine: bool) -> None:
    found = find_signature_problems(definition, WHERE)

    assert (found == []) is fine
    for problem in found:
        assert problem.code == "definition/signature-invalid"
        assert (problem.file, problem.line) == ("extension/tools/x.py", 7)
        assert "define it as `def " in problem.hint


def test_a_misspelt_argument_gets_a_did_you_mean() -> None:
    with pytest.raises(TypeError) as caught:
        define_tool(descripton="d")  # type: ignore[call-arg]

    found = find_unknown_argument(caught.value)

    assert found is not None
    assert found[0] == "`define_tool()` has no argument `descripton`"
    assert found[1].startswith("did you mean `description`?")


def test_other_type_errors_are_left_alone() -> None:
    assert find_unknown_argument(TypeError("unsupported operand")) is None
    assert find_unknown_argument(ValueError("x")) is None
