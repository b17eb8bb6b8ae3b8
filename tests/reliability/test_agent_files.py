"""Issue 23.17: a mount file that exits is a mount failure; special files in `tools/` are named."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from eve_build.consumer.build import build_agent
from eve_build.errors import DiagnosticsError
from tests.reliability.agents import run_eve
from tests.runtime.apps import compile_app, make_app

INSTRUCTIONS = "You help.\n"
EXITS_WHEN_ASKED = '''\
import os

from gizmo import gizmo

if os.environ.get("EXIT_AT_LOAD"):
    raise SystemExit(0)
mount = gizmo()
'''
FACTORY_EXITS = '''\
from gizmo import gizmo


def _exits():
    raise SystemExit(3)


mount = _exits
'''


@pytest.fixture(scope="module")
def exiting_app(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = make_app(tmp_path_factory.mktemp("exits") / "app", ["gizmo"], {
        "instructions.md": INSTRUCTIONS, "extensions/gizmo.py": EXITS_WHEN_ASKED})
    compile_app(root)
    return root


def test_a_mount_file_exiting_at_load_is_a_mount_failure_not_a_silent_exit(
        exiting_app: Path) -> None:
    fine = run_eve("call", "gizmo__spin", "{}", cwd=exiting_app)
    assert fine.returncode == 0, fine.stderr
    done = run_eve("call", "gizmo__spin", "{}", cwd=exiting_app, env={"EXIT_AT_LOAD": "1"})
    stderr = done.stderr.decode()
    assert done.returncode == 1  # was 0, with nothing printed
    assert ("agent/extensions/gizmo.py: error runtime/mount-failed: evaluating the mount "
            "file raised SystemExit: 0") in stderr
    assert "Traceback" not in stderr


def test_a_mount_file_exiting_at_build_is_a_mount_failure(exiting_app: Path) -> None:
    done = run_eve("build", cwd=exiting_app, env={"EXIT_AT_LOAD": "1"})
    stderr = done.stderr.decode()
    assert done.returncode == 1
    assert ("agent/extensions/gizmo.py:6: error load/import-failed: importing "
            "`agent/extensions/gizmo.py` raised SystemExit: 0") in stderr


def test_a_mount_factory_that_exits_is_a_mount_failure_not_an_eve_bug(tmp_path: Path) -> None:
    root = make_app(tmp_path / "app", ["gizmo"], {
        "instructions.md": INSTRUCTIONS, "extensions/gizmo.py": FACTORY_EXITS})
    with pytest.raises(DiagnosticsError) as caught:
        compile_app(root)
    assert [(d.code, d.message) for d in caught.value.diagnostics if d.is_error] == [(
        "mount/definition-wrong-kind", "`mount` in `agent/extensions/gizmo.py` is callable, "
        "but calling it with no arguments raised SystemExit")]


@pytest.mark.parametrize("kind", ["fifo", "/dev/zero"])
def test_a_special_file_in_agent_tools_is_named(tmp_path: Path, kind: str) -> None:
    root = make_app(tmp_path / "app", ["gizmo"], {
        "instructions.md": INSTRUCTIONS,
        "extensions/gizmo.py": "from gizmo import gizmo\n\nmount = gizmo()\n"})
    compile_app(root)
    tools = root / "agent" / "tools"
    tools.mkdir(exist_ok=True)
    if kind == "fifo":
        os.mkfifo(tools / "pipe.py")
        shown, what = "agent/tools/pipe.py", "a FIFO (named pipe)"
    else:
        (tools / "zero.py").symlink_to(kind)
        shown, what = "agent/tools/zero.py", "a character device"
    with pytest.raises(DiagnosticsError) as caught:
        build_agent(root)
    messages = [(d.code, d.file, d.message) for d in caught.value.diagnostics]
    assert [(code, file) for code, file, _ in messages] == [("source/special-file", shown)]
    assert f"is {what}, not a regular file" in messages[0][2]
    done = run_eve("build", cwd=root, timeout=60)  # and a real process does not hang either
    assert done.returncode == 1
    assert f"{shown}: error source/special-file" in done.stderr.decode()
