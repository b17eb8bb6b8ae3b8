"""Session claims and the commit fence on real SQLite and PostgreSQL stores: one holder at
a time, taken over when expired or when its process is gone, released by its own token
only; a commit on top of a turn that is no longer the last is refused."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from eve_build.errors import DiagnosticsError
from eve_build.session.store import open_session_store
from tests.session.turns import make_turn


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite://{tmp_path / 'claims.sqlite3'}"
    return str(request.getfixturevalue("postgres_url"))


def _gone_pid() -> int:
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    return int(done.stdout)


def test_one_claim_at_a_time(store_url: str, tmp_path: Path) -> None:
    import socket

    store = open_session_store(tmp_path, url=store_url)
    claims = store.session_claims()
    row = store.create_session(model="test")
    store.commit_turn(row.id, make_turn(1))
    mine = claims.claim(row.id, "elsewhere:1", 30.0)
    assert mine is not None and mine.turns == 1
    assert claims.claim(row.id, "elsewhere:2", 30.0) is None  # held
    assert claims.renew(mine, 30.0)
    claims.release(mine)
    again = claims.claim(row.id, "elsewhere:2", -1.0)  # expired as soon as taken
    assert again is not None
    taken = claims.claim(row.id, "elsewhere:3", 30.0)  # so it is taken over
    assert taken is not None
    assert not claims.renew(again, 30.0)
    claims.release(again)  # not its claim any more: nothing released
    assert claims.claim(row.id, "elsewhere:4", 30.0) is None
    claims.release(taken)

    dead = claims.claim(row.id, f"{socket.gethostname()}:{_gone_pid()}", 30.0)
    assert dead is not None  # a process of this host that has ended holds nothing
    assert claims.claim(row.id, "elsewhere:5", 30.0) is not None

    with pytest.raises(DiagnosticsError) as caught:
        claims.claim("nope", "elsewhere:1", 30.0)
    assert caught.value.diagnostics[0].code == "session/id-unknown"
    store.close()


def test_a_commit_on_a_stale_turn_is_refused(store_url: str, tmp_path: Path) -> None:
    store = open_session_store(tmp_path, url=store_url)
    row = store.create_session(model="test")
    store.commit_turn(row.id, dataclasses.replace(make_turn(1), after=0))
    with pytest.raises(DiagnosticsError) as caught:
        store.commit_turn(row.id, dataclasses.replace(make_turn(2), after=0))
    assert caught.value.diagnostics[0].code == "session/moved-on"
    record = store.read_session(row.id)
    assert record is not None and record.row.turns == 1 and len(record.messages) == 2
    assert store.session_claims().claim(row.id, "elsewhere:1", 30.0) is not None
    assert store.delete_session(row.id)  # its claim goes with it
    store.close()
