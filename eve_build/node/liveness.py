"""Is a node's process alive, and is it really the node? Its pid file, and cleaning up.

The pid file records who the node is, not only a number:

    {"pid": 4242, "start": 81234567, "name": "weather"}

`start` is the process's start time in clock ticks since boot (field 22 of
`/proc/<pid>/stat`). After a node dies its pid can be reused by any process, so a
pid alone proves nothing: a process is the node only when it is alive (not a
zombie), was started at the recorded time, and runs `-m eve_build.node --name
<name>`. Only such a process is ever signalled. A node killed with SIGKILL leaves
its socket and pid file behind; these are stale once the proof fails, and whoever
notices first removes them.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from eve_build.node.paths import NodePaths

PROC = Path("/proc")
NODE_MODULE = "eve_build.node"
PID_FILE_LIMIT = 4096
"""A pid file is a few dozen bytes; anything longer is not ours."""


@dataclass(frozen=True)
class ProcessInfo:
    """What `/proc/<pid>` says about a process."""

    state: str  # R, S, D, Z (zombie), T, X (dead)...
    start: int  # clock ticks after boot
    argv: tuple[str, ...]


def read_process(pid: int) -> ProcessInfo | None:
    """`/proc/<pid>`'s state, start time and command line; None when there is no such process."""
    try:
        stat = (PROC / str(pid) / "stat").read_text(encoding="utf-8", errors="replace")
        raw = (PROC / str(pid) / "cmdline").read_bytes()
    except OSError:
        return None
    fields = stat[stat.rfind(")") + 2:].split()  # the command name may hold spaces and `)`
    if len(fields) < 20 or not fields[19].isdigit():
        return None
    argv = tuple(part.decode("utf-8", "replace") for part in raw.split(b"\0") if part)
    return ProcessInfo(fields[0], int(fields[19]), argv)


def write_pid_file(paths: NodePaths) -> None:
    """The node records its own pid, start time and name (staged, then renamed)."""
    pid = os.getpid()
    info = read_process(pid)
    data = {"pid": pid, "start": info.start if info else None, "name": paths.name}
    handle, staging = tempfile.mkstemp(prefix=f".{paths.name}.pid.", dir=paths.run_dir)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(json.dumps(data) + "\n")
        Path(staging).replace(paths.pid_file)
    finally:
        Path(staging).unlink(missing_ok=True)


def read_pid(paths: NodePaths) -> int | None:
    """The pid of the node's process when it is proven to be the node, else None.

    Proven: the recorded pid is alive (a zombie is not), its start time is the
    recorded one, and its command line runs this node. An old pid file holding only
    a number is proven by the command line alone.
    """
    recorded = _read_record(paths)
    if recorded is None:
        return None
    pid, start = recorded
    if not PROC.is_dir():  # no /proc (not Linux): the pid alone is all there is
        return pid if is_alive(pid) else None
    info = read_process(pid)
    if info is None or info.state in ("Z", "X") or not is_alive(pid):
        return None
    if start is not None and info.start != start:
        return None  # the pid was reused by a process started later
    return pid if runs_node(info.argv, paths.name) else None


def runs_node(argv: tuple[str, ...], name: str) -> bool:
    """Whether a command line is `python -m eve_build.node --name <name> ...`."""
    for index, part in enumerate(argv[:-1]):
        if part == "-m" and argv[index + 1] == NODE_MODULE:
            rest = argv[index + 2:]
            return any(rest[i] == "--name" and rest[i + 1] == name
                       for i in range(len(rest) - 1)) or f"--name={name}" in rest
    return False


def _read_record(paths: NodePaths) -> tuple[int, int | None] | None:
    """(pid, start) from the pid file; None when it is missing or not a pid file of ours."""
    try:
        with paths.pid_file.open("rb") as handle:
            text = handle.read(PID_FILE_LIMIT + 1).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    if len(text) > PID_FILE_LIMIT:
        return None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if isinstance(data, int):
        data = {"pid": data, "start": None}
    if not isinstance(data, dict):
        return None
    pid, start = data.get("pid"), data.get("start")
    # pid 0, -1 and negatives address process groups or everyone: never a node's
    if isinstance(pid, bool) or not isinstance(pid, int) or pid <= 1:
        return None
    if data.get("name", paths.name) != paths.name:
        return None
    return pid, start if isinstance(start, int) and not isinstance(start, bool) else None


def is_alive(pid: int) -> bool:
    """Whether `pid` runs: a zombie (a child of ours is reaped first) is not alive."""
    if pid <= 1:
        return False
    with contextlib.suppress(ChildProcessError, OSError):
        reaped, _ = os.waitpid(pid, os.WNOHANG)
        if reaped == pid:
            return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive, and not ours to judge
        return True
    if not PROC.is_dir():
        return True
    info = read_process(pid)
    return info is not None and info.state not in ("Z", "X")


def is_same_process(pid: int, start: int | None) -> bool:
    """Whether `pid` is alive and still the process that was started at `start`."""
    if not is_alive(pid):
        return False
    if start is None:
        return True
    info = read_process(pid)
    return info is not None and info.start == start


def clean_stale(paths: NodePaths) -> bool:
    """Remove the socket and pid file of a node whose process is gone; True if removed."""
    if read_pid(paths) is not None:
        return False
    found = paths.socket.exists() or paths.pid_file.exists()
    paths.socket.unlink(missing_ok=True)
    paths.pid_file.unlink(missing_ok=True)
    return found
