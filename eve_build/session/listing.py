"""`eve sessions list | show ID | delete ID`: the store's sessions as JSON-able data.

Field names follow the JSON contract (camelCase); `usage` is `{requests, inputTokens,
outputTokens, toolCalls}` (`describe_usage`). Messages are pydantic-ai's JSON documents,
shown as they are stored; `describe_transcript` is a one-line-per-part view of them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from eve_build.session.problems import session_unknown
from eve_build.session.store import SessionRow
from eve_build.session.stores import open_session_store

USAGE_NAMES = {"requests": "requests", "input_tokens": "inputTokens",
               "output_tokens": "outputTokens", "tool_calls": "toolCalls"}

ROLES = {"system-prompt": "system", "user-prompt": "user", "text": "assistant",
         "thinking": "thinking", "tool-call": "tool call", "tool-return": "tool result",
         "retry-prompt": "retry"}


def describe_usage(usage: Mapping[str, int]) -> dict[str, int]:
    return {name: int(usage.get(key, 0)) for key, name in USAGE_NAMES.items()}


def describe_row(row: SessionRow) -> dict[str, Any]:
    return {"id": row.id, "createdAt": row.created_at, "updatedAt": row.updated_at,
            "model": row.model, "turns": row.turns, "usage": describe_usage(row.usage)}


def list_sessions(app_root: Path) -> tuple[str, list[dict[str, Any]]]:
    """The store's location and its sessions, most recently updated first."""
    store = open_session_store(app_root)
    try:
        return store.where, [describe_row(row) for row in store.list_sessions()]
    finally:
        store.close()


def describe_model_choice(app_root: Path, recorded: str | None,
                          environ: Mapping[str, str]) -> dict[str, str] | None:
    """The model the session's next turn uses without `--model`, and where it comes from
    (eve_build.session.models, the one answer); None when nothing names one."""
    from eve_build.errors import EveBuildError
    from eve_build.session.models import derive_model_choice

    try:
        from eve_build.formats.compiled import read_compiled

        root_model = read_compiled(app_root).root.model
    except (EveBuildError, OSError, ValueError):  # not built yet: no define_agent model
        root_model = None
    try:
        choice = derive_model_choice(None, environ, None, root_model, recorded=recorded)
    except EveBuildError:
        return None
    return {"model": choice.name, "source": choice.source}


def show_session(app_root: Path, session_id: str,
                 environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """One session whole: its row, messages, custom messages, approvals and state, and
    `modelChoice`: the model its next turn uses and where that comes from."""
    store = open_session_store(app_root)
    try:
        record = store.read_session(session_id)
        if record is None:
            raise session_unknown(store.where, session_id)
    finally:
        store.close()
    state = record.snapshot.get("state", {}) if isinstance(record.snapshot, dict) else {}
    choice = describe_model_choice(app_root, record.row.model,
                                   os.environ if environ is None else environ)
    return {"session": {**describe_row(record.row), "messages": record.messages,
                        "custom": record.custom, "approvals": record.approvals,
                        "state": state, "modelChoice": choice}}


def delete_session(app_root: Path, session_id: str) -> str:
    """Delete a session and everything it holds (DiagnosticsError when there is none)."""
    store = open_session_store(app_root)
    try:
        if not store.delete_session(session_id):
            raise session_unknown(store.where, session_id)
        return store.where
    finally:
        store.close()


def describe_transcript(messages: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """(role, text) per message part, in order: what `eve sessions show` prints."""
    lines = []
    for message in messages:
        for part in message.get("parts", []) if isinstance(message, dict) else []:
            kind = part.get("part_kind", "?") if isinstance(part, dict) else "?"
            lines.append((ROLES.get(kind, kind), _part_text(part)))
    return lines


def _part_text(part: Any) -> str:
    if not isinstance(part, dict):
        return json.dumps(part)
    if part.get("part_kind") == "tool-call":
        args = part.get("args")
        shown = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
        return f"{part.get('tool_name', '?')}({shown})"
    content = part.get("content", "")
    text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
    if part.get("part_kind") == "tool-return":
        return f"{part.get('tool_name', '?')} -> {text}"
    return text
