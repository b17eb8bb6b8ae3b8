"""`agent.reload_extensions()`: what is on disk now, trust checked again, never mid-call."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from eve_build.errors import EveBuildError
from eve_build.local.trust import approve_trust
from eve_build.runtime import Agent
from tests.local.conftest import place
from tests.waiting import wait_until


def test_reload_picks_up_added_and_removed_extensions(
        app: Path, global_dir: Path, load: Callable[..., Agent]) -> None:
    place(global_dir, "notes.py")
    agent = load(app)
    agent.call_tool("note", {"text": "kept"})
    place(global_dir, "shared-tool-a.py")
    (global_dir / "notes.py").unlink()
    records = agent.reload_extensions()
    assert [(r.name, r.status) for r in records] == [("shared-tool-a", "loaded")]
    assert agent.tools() == ["gizmo__spin", "ping", "shared"]
    assert agent.state("local/notes:count") == 1  # state outlives a reload
    assert agent.snapshot()["local"] == {"notes": {"entries": [{"text": "kept"}]}}


def test_reload_emits_extensions_changed_and_checks_trust_again(
        app: Path, eve_home: Path, load: Callable[..., Agent]) -> None:
    folder = app / ".eve" / "extensions"
    place(folder, "notes.py")
    approve_trust(app, eve_home)
    agent = load(app)
    assert agent.local is not None
    agent.reload_extensions()
    assert [n.text for n in agent.local.request.session.drain()[0]][-1] == (
        "saw extensions.changed")
    (folder / "notes.py").write_text((folder / "notes.py").read_text() + "# edited\n")
    assert [r.status for r in agent.reload_extensions()] == ["untrusted"]
    assert "note" not in agent.tools()


def test_reload_is_refused_while_a_call_runs(app: Path, global_dir: Path,
                                             load: Callable[..., Agent]) -> None:
    place(global_dir, "slow-tool.py")
    agent = load(app)
    results = []
    call = threading.Thread(target=lambda: results.append(agent.call_tool("wait", {})))
    call.start()
    wait_until((global_dir / "started").exists, "the `wait` call to start")
    with pytest.raises(EveBuildError, match="cannot reload the local extensions while a call "
                                            "is running"):
        agent.reload_extensions()
    (global_dir / "release").write_text("")
    call.join(timeout=30)
    assert results[0].value == "released"
    assert [r.status for r in agent.reload_extensions()] == ["loaded"]
