"""A stale pid file never gets an unrelated process signalled (issue 23 item 5).

After a node dies its pid may belong to any process. `eve ext stop`, `start`,
`remove`, `list` and a host's scan must leave such a process alone, and a zombie
with the recorded pid must not hold `eve ext stop` up.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from eve_build.node.lifecycle import StartReport, list_nodes, remove_node, start_node, stop_node
from eve_build.node.liveness import is_alive, read_pid, read_process
from eve_build.node.paths import NodePaths, ensure_run_dir
from eve_build.node.scan import scan_nodes

Run = Callable[[str, str], StartReport]
SLEEP = "import time; time.sleep(120)"


@pytest.fixture
def bystander() -> Iterator[subprocess.Popen[bytes]]:
    """An unrelated live process: what a reused pid belongs to."""
    process = subprocess.Popen(["sleep", "120"])
    yield process
    process.kill()
    process.wait()


def _impostor(name: str) -> subprocess.Popen[bytes]:
    """A process whose command line looks like the node's (`-m eve_build.node --name`)."""
    return subprocess.Popen([sys.executable, "-c", SLEEP, "-m", "eve_build.node",
                             "--name", name])


def _plant(home: Path, name: str, content: str) -> NodePaths:
    paths = NodePaths(home, name)
    ensure_run_dir(home)
    paths.pid_file.write_text(content, encoding="utf-8")
    return paths


def _alive(process: subprocess.Popen[bytes]) -> bool:
    return process.poll() is None


def test_a_bare_pid_of_an_unrelated_process_survives_every_command(
        home: Path, register: Callable[[str, str], Path],
        bystander: subprocess.Popen[bytes]) -> None:
    register("echo-node", "echo")
    for content in (f"{bystander.pid}\n",
                    json.dumps({"pid": bystander.pid, "start": None, "name": "echo"}),
                    json.dumps({"pid": bystander.pid, "name": "echo",
                                "start": read_process(bystander.pid).start})):  # type: ignore[union-attr]
        paths = _plant(home, "echo", content)
        assert read_pid(paths) is None  # `sleep 120` is not the node
        assert stop_node(home, "echo") == "not-running"
        assert _alive(bystander)
        _plant(home, "echo", content)
        assert list_nodes(home)[0]["running"] is False and _alive(bystander)
        _plant(home, "echo", content)
        assert scan_nodes(home)[0][0].status == "stopped" and _alive(bystander)
        _plant(home, "echo", content)
        report = start_node(home, "echo", python=Path(sys.executable), timeout=60.0)
        assert _alive(bystander) and report.pid != bystander.pid
        assert json.loads(paths.pid_file.read_text())["pid"] == report.pid
        assert stop_node(home, "echo") == "stopped" and not is_alive(report.pid)
    _plant(home, "echo", f"{bystander.pid}\n")
    assert remove_node(home, "echo") is False
    assert _alive(bystander)


def test_a_reused_pid_that_looks_like_the_node_is_told_apart_by_its_start_time(
        home: Path, run_node: Run) -> None:
    report = run_node("echo-node", "echo")
    paths = NodePaths(home, "echo")
    recorded = json.loads(paths.pid_file.read_text())
    assert recorded["pid"] == report.pid and recorded["name"] == "echo"
    os.kill(report.pid, signal.SIGKILL)
    while is_alive(report.pid):
        pass
    impostor = _impostor("echo")  # started after the node: another start time
    try:
        assert read_process(impostor.pid) is not None
        paths.pid_file.write_text(json.dumps({**recorded, "pid": impostor.pid}))
        assert read_pid(paths) is None
        assert stop_node(home, "echo") == "not-running"
        paths.pid_file.write_text(json.dumps({**recorded, "pid": impostor.pid}))
        assert remove_node(home, "echo") is False
        assert _alive(impostor)
    finally:
        impostor.kill()
        impostor.wait()


def test_a_proven_node_process_is_still_stopped(home: Path, run_node: Run) -> None:
    report = run_node("echo-node", "echo")
    paths = NodePaths(home, "echo")
    assert read_pid(paths) == report.pid
    # an old pid file with only the number: the command line proves it
    paths.pid_file.write_text(f"{report.pid}\n")
    assert read_pid(paths) == report.pid
    assert stop_node(home, "echo") == "stopped" and not is_alive(report.pid)


@pytest.mark.parametrize("content", ["-1", "0", "1", "true", '{"pid": -1}', '{"pid": "12"}',
                                     "[" * 100_000, "x" * 10_000])
def test_pid_files_that_name_everyone_or_nothing_are_never_signalled(
        home: Path, register: Callable[[str, str], Path], content: str) -> None:
    register("echo-node", "echo")
    paths = _plant(home, "echo", content)
    assert read_pid(paths) is None
    assert stop_node(home, "echo") == "not-running"  # os.kill(-1) would have ended us
    assert not paths.pid_file.exists()


def test_a_zombie_with_the_recorded_pid_does_not_hold_up_stop(
        home: Path, register: Callable[[str, str], Path]) -> None:
    register("echo-node", "echo")
    # a parent that never reaps its child: the child stays a zombie while the parent lives
    parent = subprocess.Popen(
        [sys.executable, "-c", "import os, sys, time\npid = os.fork()\nif pid == 0:\n"
         "    os._exit(0)\nprint(pid, flush=True)\ntime.sleep(120)\n"],
        stdout=subprocess.PIPE)
    try:
        assert parent.stdout is not None
        zombie = int(parent.stdout.readline())
        while (info := read_process(zombie)) is not None and info.state != "Z":
            pass
        assert info is not None and info.state == "Z"
        paths = _plant(home, "echo", json.dumps({"pid": zombie, "start": info.start,
                                                 "name": "echo"}))
        # the CLI in a real process: a hang here would run into the subprocess timeout
        done = subprocess.run([sys.executable, "-m", "eve_build", "ext", "stop", "echo"],
                              capture_output=True, text=True, timeout=60,
                              env={**os.environ, "EVE_HOME": str(home)})
        assert done.returncode == 0, done.stderr
        assert "Node `echo` is not running; nothing to stop" in done.stderr
        assert "Traceback" not in done.stderr
        assert not paths.pid_file.exists()
        assert _alive(parent)  # the zombie's parent was not signalled either
    finally:
        parent.kill()
        parent.wait()
