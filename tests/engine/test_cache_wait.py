"""A build that waits for another build's lock on the cache says so while it waits
(issue 26, item 14), instead of up to 60 s of silence; both CLI paths (the fast path
and the typer one with `--path`)."""

from __future__ import annotations

import contextlib
import os
import queue
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from eve_build.engine.cache_store import DATABASE
from eve_build.engine.stamp import STAMP_FILE
from eve_build.extension.build import build_extension

WAITING = "waiting for the build cache"


@pytest.mark.parametrize("fast", [True, False])
def test_a_build_waiting_for_the_cache_lock_says_so(
        copy_fixture: Callable[[str], Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        fast: bool) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv("EVE_CACHE_DIR", str(cache))
    root = copy_fixture("extensions/acme-crm")
    build_extension(root)
    with contextlib.closing(sqlite3.connect(cache / DATABASE)) as db:
        db.execute("DELETE FROM entries")  # so the next build writes every entry again
        db.commit()
    (cache / STAMP_FILE).unlink()

    holder = sqlite3.connect(cache / DATABASE, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another build's write in progress
    try:
        command = ([sys.executable, "-m", "eve_build", "extension", "build"] if fast else
                   [sys.executable, "-m", "eve_build", "extension", "build", "--path", "."])
        process = subprocess.Popen(command, cwd=root, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True,
                                   env={**os.environ, "EVE_CACHE_DIR": str(cache),
                                        "NO_COLOR": "1"})
        lines: queue.Queue[str] = queue.Queue()

        def read() -> None:
            assert process.stderr is not None
            for line in process.stderr:
                lines.put(line)

        threading.Thread(target=read, daemon=True).start()
        said = lines.get(timeout=120)  # the first line on stderr, while the lock is held
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    stdout, _ = process.communicate(timeout=120)

    assert said.startswith(WAITING), said
    assert str(cache / DATABASE) in said
    assert process.returncode == 0
    assert "Built" in stdout
    with contextlib.closing(sqlite3.connect(cache / DATABASE)) as db:
        assert db.execute("SELECT count(*) FROM entries").fetchone()[0] > 0  # it wrote after
