"""Issue 23.22 (last clause): `.eve/extensions/zero.py -> /dev/zero` committed to a project.

Every command reads the project folder to decide trust; a device or FIFO there must be
named and dropped, never read. The commands run as real processes under a 1.5 GiB
address-space limit, so a regression fails fast instead of exhausting the machine.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

LIMIT = 1536 * 1024 * 1024


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))


def eve(app: Path, eve_home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "EVE_HOME": str(eve_home)}
    done = subprocess.run([sys.executable, "-m", "eve_build", *args, "--path", str(app)],
                          capture_output=True, text=True, env=env, timeout=60, check=False,
                          preexec_fn=_limit_memory)
    assert "Traceback" not in done.stderr
    assert "MemoryError" not in done.stderr and "internal/unexpected" not in done.stderr
    return done


def rows(app: Path, eve_home: Path) -> dict[str, dict[str, object]]:
    listed = eve(app, eve_home, "extensions", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    return {r["name"]: r for r in json.loads(listed.stdout)["extensions"]}


@pytest.mark.parametrize(("name", "kind", "what"), [
    ("zero.py", "/dev/zero", "a character device"),
    ("noise.py", "/dev/urandom", "a character device"),
    ("pipe.py", "fifo", "a FIFO (named pipe)"),
])
def test_a_device_or_fifo_in_the_project_folder_is_named_and_never_read(
        app: Path, eve_home: Path, name: str, kind: str, what: str) -> None:
    folder = app / ".eve" / "extensions"
    folder.mkdir(parents=True)
    (folder / "fine.py").write_text("from eve_build.sdk import Spec\n\n\n"
                                    "def setup(ctx):\n    return Spec()\n")
    if kind == "fifo":
        os.mkfifo(folder / name)
    else:
        (folder / name).symlink_to(kind)
    stem = name.removesuffix(".py")
    before = rows(app, eve_home)  # before any trust decision
    assert (before[stem]["status"], before["fine"]["status"]) == ("untrusted", "untrusted")
    assert eve(app, eve_home, "trust", "--yes").returncode == 0
    after = rows(app, eve_home)
    assert (after[stem]["status"], after["fine"]["status"]) == ("dropped", "loaded")
    (problem,) = after[stem]["diagnostics"]  # type: ignore[misc]
    assert problem["code"] == "source/special-file"
    assert problem["file"] == f".eve/extensions/{name}"
    assert f"is {what}, not a regular file" in problem["message"]
    called = eve(app, eve_home, "call", "ping", "{}")
    assert (called.returncode, json.loads(called.stdout)) == (0, {"pong": "ping"})
