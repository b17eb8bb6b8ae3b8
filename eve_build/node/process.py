"""A node's process: start it detached with its log, wait until it answers, stop it.

Liveness is the pid file plus the process (`eve_build.node.liveness`).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

from eve_build.node import protocol
from eve_build.node.connection import NodeConnection, NodeError, run_sync
from eve_build.node.liveness import is_alive, is_same_process, read_process
from eve_build.node.paths import NodePaths, ensure_run_dir

START_TIMEOUT = 30.0
STOP_TIMEOUT = 5.0
POLL_SECONDS = 0.01


def spawn_node(python: Path, paths: NodePaths, project: Path) -> subprocess.Popen[bytes]:
    """Start `python -m eve_build.node` in its own session, output to the node's log."""
    ensure_run_dir(paths.home)
    paths.log.parent.mkdir(parents=True, exist_ok=True)
    environ = {**os.environ, "EVE_HOME": str(paths.home), "PYTHONUNBUFFERED": "1"}
    environ.pop("VIRTUAL_ENV", None)
    with open(paths.log, "ab") as log:
        return subprocess.Popen(
            [str(python), "-m", "eve_build.node", "--name", paths.name, "--project",
             str(project)],
            cwd=project, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
            env=environ, start_new_session=True)


def wait_until_answering(process: subprocess.Popen[bytes], paths: NodePaths,
                         timeout: float = START_TIMEOUT) -> dict[str, Any] | str:
    """The node's description once it answers, or why it did not (its log's last line)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return f"it exited with code {process.returncode}: {read_log_tail(paths)}"
        if paths.socket.exists():
            description = run_sync(_try_describe(paths))
            if description is not None:
                return description
        time.sleep(POLL_SECONDS)
    return f"it did not answer within {timeout:g} s: {read_log_tail(paths)}"


async def _try_describe(paths: NodePaths) -> dict[str, Any] | None:
    try:
        connection = await NodeConnection.open(paths.name, paths.socket, timeout=1.0)
    except NodeError:
        return None
    try:
        result = await connection.request(protocol.DESCRIBE, {}, timeout=5.0)
    except (NodeError, protocol.RemoteError):
        return None
    finally:
        await connection.close()
    return result if isinstance(result, dict) else None


def stop_process(pid: int, timeout: float = STOP_TIMEOUT) -> str:
    """SIGTERM, then SIGKILL after `timeout`; returns how it ended (`stopped`, `killed`).

    `pid` must be proven to be the node (`liveness.read_pid`) or be our own child. Its
    start time is taken first, so a pid reused while we wait is never signalled, and
    a zombie counts as ended (its parent reaps it; waiting for that could take forever).
    """
    if pid <= 1 or not is_alive(pid):
        return "stopped"
    info = read_process(pid)
    start = info.start if info is not None else None
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not is_same_process(pid, start):
            return "stopped"
        time.sleep(POLL_SECONDS)
    if is_same_process(pid, start):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    while is_same_process(pid, start):
        time.sleep(POLL_SECONDS)
    return "killed"


def read_log_tail(paths: NodePaths) -> str:
    """The last error line of the node's log (or its last line)."""
    try:
        lines = [line.strip() for line in paths.log.read_text(encoding="utf-8",
                                                              errors="replace").splitlines()
                 if line.strip()]
    except OSError:
        return "(no log)"
    errors = [line for line in lines if " ERROR " in line or line.startswith("error")]
    return (errors or lines or ["(empty log)"])[-1]


def describe_running(paths: NodePaths) -> dict[str, Any] | None:
    """The description of a node that answers now, else None (for `eve node list`)."""
    if not paths.socket.exists():
        return None
    return run_sync(_try_describe(paths))


