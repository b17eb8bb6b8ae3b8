"""The extension's ctx and session: entries are JSON-safe and travel in the snapshot."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from eve_build.errors import EveBuildError
from eve_build.local.context import LocalSession, ScriptContext
from eve_build.runtime import Agent
from tests.local.conftest import place


def test_append_entry_takes_only_json_safe_dicts(tmp_path: Path) -> None:
    session = LocalSession()
    ctx = ScriptContext("notes", tmp_path, tmp_path, session)
    ctx.append_entry({"text": "ok", "n": 1})
    with pytest.raises(EveBuildError, match="the entry is not JSON-safe"):
        ctx.append_entry({"when": object()})
    with pytest.raises(EveBuildError, match="append_entry takes a dict, not list"):
        ctx.append_entry([1])  # type: ignore[arg-type]
    assert ctx.entries == [{"text": "ok", "n": 1}]
    assert session.snapshot() == {"notes": {"entries": [{"text": "ok", "n": 1}]}}


def test_notices_and_messages_are_reported_once(tmp_path: Path) -> None:
    session = LocalSession()
    ctx = ScriptContext("notes", tmp_path, tmp_path, session)
    ctx.notify("careful", level="warning")
    ctx.notify("odd level", level="shout")
    ctx.send_user_message("hello")
    notices, messages = session.drain()
    assert [(n.text, n.level) for n in notices] == [("careful", "warning"), ("odd level", "info")]
    assert [(m.extension, m.text) for m in messages] == [("notes", "hello")]
    assert session.drain() == ([], [])


def test_entries_come_back_with_a_snapshot(app: Path, global_dir: Path,
                                           load: Callable[..., Agent]) -> None:
    place(global_dir, "notes.py")
    first = load(app)
    first.call_tool("note", {"text": "milk"})
    saved = json.loads(json.dumps(first.snapshot()))
    second = load(app, snapshot=saved)
    assert second.run_command("notes").text == "1 notes\n- milk"
    assert second.state("local/notes:count") == 1


def test_local_extensions_never_enter_the_compiled_agent(app: Path, global_dir: Path) -> None:
    from eve_build.consumer.build import build_agent

    place(global_dir, "notes.py")
    place(app / ".eve" / "extensions", "greeter.py")
    build_agent(app)
    compiled = (app / ".eve" / "compile" / "compiled-agent.json").read_text()
    assert "notes" not in compiled
    assert "greeter" not in compiled


def test_a_local_tools_numeric_progress_reaches_the_answerer(tmp_path: Path) -> None:
    from eve_build.local.context import LocalToolContext
    from eve_build.sdk import ToolContext
    from eve_build.sdk.interaction import LogEntry, interacting

    seen: list[LogEntry] = []
    texts: list[str] = []
    ctx = LocalToolContext(ToolContext("count", progress=texts.append),
                           ScriptContext("notes", tmp_path, tmp_path, LocalSession()))
    with interacting(progress=seen.append):
        ctx.report_progress("half", progress=50, total=100)
    assert [(e.text, e.progress, e.total) for e in seen] == [("half", 50, 100)]
