"""A process killed with SIGKILL while committing turns in a loop loses no committed turn."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

from eve_build.session.stores import open_session_store
from tests.conftest import REPO

COMMITTER = """
import sys
sys.path.insert(0, sys.argv[2])
from pathlib import Path
from eve_build.session.stores import open_session_store
from tests.session.turns import make_turn
store = open_session_store(Path(sys.argv[1]))
record = store.read_session("crash")
turn = record.row.turns if record else 0
if record is None:
    store.create_session(session_id="crash", model="test")
while True:
    turn += 1
    store.commit_turn("crash", make_turn(turn))
    print(turn, flush=True)
"""


def _commit_until_killed(root: Path, lines: int) -> int:
    """Run the committer, SIGKILL it after `lines` reported commits; the last one reported."""
    child = subprocess.Popen([sys.executable, "-c", COMMITTER, str(root), str(REPO)],
                             stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    last = 0
    try:
        for _ in range(lines):
            line = child.stdout.readline()
            assert line, "the committer stopped early"
            last = int(line)
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=10)
    assert child.returncode == -signal.SIGKILL
    return last


def test_sigkill_mid_commit_loses_no_committed_turn(tmp_path: Path) -> None:
    for lines in (15, 40, 5):
        reported = _commit_until_killed(tmp_path, lines)
        store = open_session_store(tmp_path)
        record = store.read_session("crash")
        store.close()
        assert record is not None
        turns = record.row.turns
        assert turns >= reported  # every reported commit survived
        assert len(record.messages) == 2 * turns  # and no half turn is there
        assert [m["parts"][0]["content"] for m in record.messages[::2]] == [
            f"ask {n}" for n in range(1, turns + 1)]
        assert [c["data"]["n"] for c in record.custom] == list(range(1, turns + 1))
        assert record.row.usage["requests"] == turns
        assert record.snapshot["state"] == {"spins": turns}
    with sqlite3.connect(tmp_path / ".eve" / "sessions.sqlite3") as conn:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    conn.close()
