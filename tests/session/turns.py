"""Turns as the engine commits them: pydantic-ai-shaped message documents, by number."""

from __future__ import annotations

from typing import Any

from eve_build.session.store import TurnRecord


def make_turn(number: int, *, approvals: tuple[str, ...] = ()) -> TurnRecord:
    """Turn `number`: a request and a response message, one custom message, usage."""
    messages: list[dict[str, Any]] = [
        {"kind": "request", "parts": [{"part_kind": "user-prompt", "content": f"ask {number}"}]},
        {"kind": "response", "parts": [
            {"part_kind": "tool-call", "tool_name": "spin", "args": {"times": number}},
            {"part_kind": "text", "content": f"answer {number}"}]},
    ]
    return TurnRecord(messages=messages,
                      snapshot={"formatVersion": 1, "state": {"spins": number}},
                      approvals=list(approvals),
                      custom=[{"text": f"note {number}", "type": "note", "data": {"n": number},
                               "at": "2026-12-01T00:00:00+00:00"}],
                      usage={"requests": 1, "input_tokens": 10, "output_tokens": 5,
                             "tool_calls": 1},
                      model="test")
