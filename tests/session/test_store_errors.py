"""A store that is not ours is reported with its file and the fix, and left byte for byte."""

from __future__ import annotations

import socket
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from eve_build.cli import app as cli
from eve_build.errors import DiagnosticsError
from eve_build.session.stores import open_session_store
from tests.session.turns import make_turn


def _store_file(root: Path) -> Path:
    path = root / ".eve" / "sessions.sqlite3"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def _refused(root: Path) -> DiagnosticsError:
    with pytest.raises(DiagnosticsError) as caught:
        open_session_store(root)
    return caught.value


def test_a_file_that_is_not_sqlite_is_reported_and_kept(tmp_path: Path) -> None:
    path = _store_file(tmp_path)
    path.write_bytes(b"my notes, not a database\n" * 40)
    found = _refused(tmp_path).diagnostics[0]
    assert found.code == "session/store-invalid"
    assert found.file == str(path)
    assert "not a usable SQLite database" in found.message
    assert "move" in found.hint and "EVE_SESSION_STORE" in found.hint
    assert path.read_bytes() == b"my notes, not a database\n" * 40
    assert sorted(p.name for p in path.parent.iterdir()) == ["sessions.sqlite3"]


def test_a_damaged_sqlite_file_is_reported_and_kept(tmp_path: Path) -> None:
    path = _store_file(tmp_path)
    path.write_bytes(b"SQLite format 3\x00" + b"\xff" * 4080)
    assert _refused(tmp_path).diagnostics[0].code == "session/store-invalid"
    assert path.read_bytes() == b"SQLite format 3\x00" + b"\xff" * 4080


def test_a_foreign_sqlite_database_is_reported_and_kept(tmp_path: Path) -> None:
    path = _store_file(tmp_path)
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE invoices (id INTEGER, total REAL)")
        conn.execute("INSERT INTO invoices VALUES (1, 9.5)")
    conn.close()
    before = path.read_bytes()
    found = _refused(tmp_path).diagnostics[0]
    assert found.code == "session/store-foreign"
    assert "invoices" in found.message and found.file == str(path)
    assert path.read_bytes() == before  # not even switched to WAL


def test_a_newer_schema_is_refused_and_its_data_kept(tmp_path: Path) -> None:
    store = open_session_store(tmp_path)
    row = store.create_session()
    store.commit_turn(row.id, make_turn(1))
    store.close()
    path = _store_file(tmp_path)
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE eve_schema SET version = 99")
    conn.close()

    found = _refused(tmp_path).diagnostics[0]
    assert found.code == "session/store-too-new"
    assert "schema version 99" in found.message and "up to 1" in found.message
    assert "pip install -U eve-build" in found.hint
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT version FROM eve_schema").fetchall() == [(99,)]
        assert conn.execute("SELECT turns FROM eve_sessions").fetchall() == [(1,)]
    conn.close()


def test_the_cli_reports_a_bad_store_without_a_traceback(tmp_path: Path) -> None:
    path = _store_file(tmp_path)
    path.write_text("not sqlite")
    for args in (["sessions", "list"], ["sessions", "show", "x"], ["sessions", "delete", "x"]):
        result = CliRunner().invoke(cli, [*args, "--path", str(tmp_path)])
        assert result.exit_code == 1, result.output
        assert "session/store-invalid" in result.stderr
        assert str(path) in result.stderr
        assert "Traceback" not in result.output
    assert path.read_text() == "not sqlite"


def test_eve_serve_stops_at_start_up_on_a_store_it_cannot_use(counter_root: Path,
                                                              tmp_path: Path) -> None:
    bad = tmp_path / "bad.sqlite3"
    bad.write_text("not sqlite")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        closed = sock.getsockname()[1]
    for store, code in ((str(bad), "session/store-invalid"),
                        (f"postgresql://eve:pw@127.0.0.1:{closed}/x",
                         "session/store-unreachable")):
        result = CliRunner().invoke(cli, ["serve", "--path", str(counter_root), "--port", "0"],
                                    env={"EVE_SESSION_STORE": store})
        assert result.exit_code == 1, result.output
        assert code in result.stderr and "Traceback" not in result.output
        assert ":pw@" not in result.output
    assert bad.read_text() == "not sqlite"
