"""start, list, stop, remove against real node processes (run with this interpreter)."""

from __future__ import annotations

import json
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from eve_build.errors import DiagnosticsError
from eve_build.node.lifecycle import (
    StartReport,
    list_nodes,
    remove_node,
    start_node,
    stop_node,
)
from eve_build.node.paths import NodePaths
from eve_build.node.process import is_alive
from eve_build.node.registry import read_registry

Run = Callable[[str, str], StartReport]


def _codes(info: pytest.ExceptionInfo[DiagnosticsError]) -> list[str]:
    return [d.code for d in info.value.diagnostics]


def test_start_serves_the_socket_and_stop_cleans_up(home: Path, run_node: Run) -> None:
    report = run_node("echo-node", "echo")
    paths = NodePaths(home, "echo")
    assert report.tools == ["echo", "sleep", "wait"] and not report.already_running
    assert paths.socket.stat().st_mode & 0o777 == 0o600
    assert paths.run_dir.stat().st_mode & 0o777 == 0o700
    assert json.loads(paths.pid_file.read_text())["pid"] == report.pid
    assert "listening on" in paths.log.read_text()
    again = start_node(home, "echo", python=Path(sys.executable))
    assert again.already_running and again.pid == report.pid
    [row] = list_nodes(home)
    assert row["running"] and row["pid"] == report.pid and row["tools"] == ["echo", "sleep", "wait"]
    assert stop_node(home, "echo") == "stopped"
    assert not paths.socket.exists() and not paths.pid_file.exists()
    assert not is_alive(report.pid)
    assert list_nodes(home)[0]["running"] is False


def test_a_killed_node_leaves_a_stale_socket_that_is_cleaned(home: Path, run_node: Run) -> None:
    report = run_node("echo-node", "echo")
    os.kill(report.pid, signal.SIGKILL)
    paths = NodePaths(home, "echo")
    while is_alive(report.pid):
        pass
    assert paths.socket.exists()  # SIGKILL gave it no chance to clean up
    assert list_nodes(home)[0]["running"] is False
    assert not paths.socket.exists() and not paths.pid_file.exists()
    restarted = start_node(home, "echo", python=Path(sys.executable))
    assert restarted.pid != report.pid and restarted.tools == ["echo", "sleep", "wait"]


def test_start_of_an_unregistered_name(home: Path) -> None:
    with pytest.raises(DiagnosticsError) as info:
        start_node(home, "ghost")
    assert _codes(info) == ["node/not-registered"]
    assert "eve node add" in info.value.diagnostics[0].hint


def test_start_of_a_project_without_extension_py(
        home: Path, register: Callable[[str, str], Path]) -> None:
    register("no-extension", "bare")
    with pytest.raises(DiagnosticsError) as info:
        start_node(home, "bare", python=Path(sys.executable))
    assert _codes(info) == ["node/extension-missing"]


def test_a_failing_install_shows_the_key_line(
        home: Path, register: Callable[[str, str], Path]) -> None:
    register("install-fails", "broken")
    output = ("Collecting no-such-package\n" + "  noise line\n" * 20
              + "ERROR: Could not find a version that satisfies the requirement x\n"
              + "ERROR: No matching distribution found for no-such-package-for-eve-build-tests\n")
    calls: list[list[str]] = []

    def runner(argv: object, cwd: Path) -> tuple[int, str]:
        calls.append(list(argv))  # type: ignore[call-overload]
        return (1, output) if "-e" in calls[-1] else (0, "")

    with pytest.raises(DiagnosticsError) as info:
        start_node(home, "broken", runner=runner)
    [diagnostic] = info.value.diagnostics
    assert diagnostic.code == "node/install-failed"
    assert diagnostic.message == ("installing `broken` failed: No matching distribution "
                                  "found for no-such-package-for-eve-build-tests")
    assert "noise" not in diagnostic.message


def test_a_node_whose_setup_fails_does_not_start(
        home: Path, register: Callable[[str, str], Path]) -> None:
    project = register("echo-node", "echo")
    (project / "extension.py").write_text("def setup(ctx):\n    raise RuntimeError('boom')\n")
    with pytest.raises(DiagnosticsError) as info:
        start_node(home, "echo", python=Path(sys.executable), timeout=60.0)
    [diagnostic] = info.value.diagnostics
    assert diagnostic.code == "node/start-failed"
    assert "RuntimeError: boom" in diagnostic.message
    assert not NodePaths(home, "echo").socket.exists()


def test_stop_of_a_node_that_is_not_running(
        home: Path, register: Callable[[str, str], Path]) -> None:
    register("echo-node", "echo")
    assert stop_node(home, "echo") == "not-running"
    assert stop_node(home, "echo") == "not-running"  # idempotent


def test_remove_stops_and_forgets(home: Path, run_node: Run) -> None:
    report = run_node("echo-node", "echo")
    assert remove_node(home, "echo") is True
    assert read_registry(home) == {} and not is_alive(report.pid)


def test_a_second_node_process_of_one_name_refuses_to_start(home: Path, run_node: Run) -> None:
    import subprocess

    report = run_node("echo-node", "echo")
    second = subprocess.run(
        [sys.executable, "-m", "eve_build.node", "--name", "echo", "--project", str(home)],
        capture_output=True, text=True, timeout=60, check=False)
    assert second.returncode == 1
    assert "node `echo` is already running on" in second.stderr
    assert list_nodes(home)[0]["pid"] == report.pid  # the first one still serves


def _socket_inodes(pid: int) -> set[str]:
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = str(fd.readlink())
        except FileNotFoundError:  # closed while the folder was listed
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    return inodes


def _listening_tcp_inodes() -> set[str]:
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A":  # LISTEN
                inodes.add(fields[9])
    return inodes


def test_a_node_listens_on_no_tcp_port(run_node: Run) -> None:
    report = run_node("echo-node", "echo")
    sockets = _socket_inodes(report.pid)
    unix = {line.split()[6] for line in Path("/proc/net/unix").read_text().splitlines()[1:]
            if line.endswith(str(report.socket))}
    assert unix and unix <= sockets  # it does listen on its Unix socket
    assert not sockets & _listening_tcp_inodes()


def test_stop_kills_a_node_that_does_not_stop_in_time(home: Path, run_node: Run) -> None:
    import asyncio
    import threading

    from eve_build.node.connection import NodeError
    from eve_build.node.scan import scan_nodes
    from eve_build.sdk.binding import ToolContext

    report = run_node("echo-node", "echo")
    [node] = scan_nodes(home)[0]
    assert node.client is not None
    wait = node.client.spec().tools["wait"]
    assert wait.input is not None and wait.execute is not None
    in_flight = threading.Event()
    failures: list[BaseException] = []

    def call() -> None:
        context = ToolContext(name="wait", progress=lambda _text: in_flight.set())
        try:
            asyncio.run(wait.execute(wait.input.model_validate({"seconds": 60}), context))
        except NodeError as exc:
            failures.append(exc)

    caller = threading.Thread(target=call)
    caller.start()
    assert in_flight.wait(30)
    # the node's tool thread sleeps 60 s, so a graceful stop cannot finish
    assert stop_node(home, "echo", timeout=0.5) == "killed"
    caller.join(30)
    assert not is_alive(report.pid)
    assert [str(f) for f in failures] == [
        "node `echo` closed the connection (did it stop or crash?)"]
    assert not NodePaths(home, "echo").socket.exists()


def test_an_async_setup_is_awaited(home: Path, register: Callable[[str, str], Path]) -> None:
    project = register("echo-node", "echo")
    source = (project / "extension.py").read_text()
    (project / "extension.py").write_text(source.replace("def setup(ctx):",
                                                         "async def setup(ctx):"))
    report = start_node(home, "echo", python=Path(sys.executable), timeout=60.0)
    try:
        assert report.tools == ["echo", "sleep", "wait"]
    finally:
        stop_node(home, "echo")


def test_a_node_that_never_answers_is_stopped_and_reported(
        home: Path, register: Callable[[str, str], Path]) -> None:
    project = register("echo-node", "echo")
    (project / "extension.py").write_text(
        "import time\n\n\ndef setup(ctx):\n    time.sleep(3600)\n")
    with pytest.raises(DiagnosticsError) as info:
        start_node(home, "echo", python=Path(sys.executable), timeout=1.0)
    [diagnostic] = info.value.diagnostics
    assert diagnostic.code == "node/start-failed"
    assert diagnostic.message.startswith("node `echo` did not start: it did not answer "
                                         "within 1 s")
    assert read_registry(home)["echo"].path == project
    assert list_nodes(home)[0]["running"] is False
    assert not NodePaths(home, "echo").pid_file.exists()
