"""Is a node's process alive? Its pid file, the process, and cleaning up after it.

A node killed with SIGKILL leaves its socket and pid file behind; these are stale
once the process is gone, and whoever notices first removes them.
"""

from __future__ import annotations

import contextlib
import os

from eve_build.node.paths import NodePaths


def read_pid(paths: NodePaths) -> int | None:
    """The pid in the node's pid file when that process is alive, else None."""
    try:
        pid = int(paths.pid_file.read_text(encoding="utf-8").strip())
    except (OSError, ValueError):
        return None
    return pid if is_alive(pid) else None


def is_alive(pid: int) -> bool:
    """Whether `pid` runs: a zombie child of ours is reaped first (it would pass kill 0)."""
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
    return True


def clean_stale(paths: NodePaths) -> bool:
    """Remove the socket and pid file of a node whose process is gone; True if removed."""
    if read_pid(paths) is not None:
        return False
    found = paths.socket.exists() or paths.pid_file.exists()
    paths.socket.unlink(missing_ok=True)
    paths.pid_file.unlink(missing_ok=True)
    return found
