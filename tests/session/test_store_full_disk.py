"""A full disk is said to be a full disk (issue 26, item 14), not an invalid store to move
away. The seam: SQLite's own SQLITE_FULL, raised by a real database whose connections may
not grow (`PRAGMA max_page_count`), as a full file system raises it."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from eve_build.cli import app as cli
from eve_build.errors import DiagnosticsError
from eve_build.session.store import open_session_store
from tests.session.turns import make_turn


def _no_room(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every SQLite connection from now on is on a disk that is full."""
    connect: Callable[..., sqlite3.Connection] = sqlite3.connect

    def full(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        conn = connect(*args, **kwargs)
        (pages,) = conn.execute("PRAGMA page_count").fetchone()
        conn.execute(f"PRAGMA max_page_count = {max(int(pages), 1)}")
        return conn

    monkeypatch.setattr(sqlite3, "connect", full)


def _says_the_disk_is_full(text: str) -> None:
    assert "session/store-unwritable" in text, text
    assert "the disk holding the session store is full" in text, text
    assert "session/store-invalid" not in text and "move" not in text, text


def test_sessions_list_on_a_full_disk_says_so(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    _no_room(monkeypatch)
    result = CliRunner().invoke(cli, ["sessions", "list", "--path", str(tmp_path)])

    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    _says_the_disk_is_full(result.stderr)


def test_a_turn_committed_on_a_full_disk_says_so_and_the_store_stays_usable(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = open_session_store(tmp_path)
    row = store.create_session(model="test")
    store.commit_turn(row.id, make_turn(1))
    store.close()

    with monkeypatch.context() as patch:
        _no_room(patch)
        full = open_session_store(tmp_path)
        try:
            with pytest.raises(DiagnosticsError) as caught:
                for number in range(2, 200):  # until the pages run out
                    full.commit_turn(row.id, make_turn(number))
        finally:
            full.close()
    [problem] = caught.value.diagnostics
    _says_the_disk_is_full(f"{problem.code} {problem.message} {problem.hint}")

    again = open_session_store(tmp_path)
    try:
        record = again.read_session(row.id)
        assert record is not None and len(record.messages) >= 2
    finally:
        again.close()
