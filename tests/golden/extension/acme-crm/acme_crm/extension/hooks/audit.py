"""Audit every tool call and its result; never changes either."""

from __future__ import annotations

from typing import Any

from eve_build.sdk import Event, define_hook


def on_call(event: Event, ctx: Any) -> None:
    """Observe the call; returning None lets it proceed unchanged."""
    return None


def on_result(event: Event, ctx: Any) -> None:
    """Observe the result; returning None keeps it unchanged."""
    return None


hook = define_hook(events={"action.call": on_call, "action.result": on_result})
