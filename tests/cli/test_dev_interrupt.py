"""`eve dev` for real: Ctrl-C ends it cleanly (exit 130, no traceback, no library log)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.runtime.apps import make_app, mount_file


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT delivery is POSIX here")
def test_ctrl_c_stops_dev_quietly(tmp_path: Path) -> None:
    root = make_app(tmp_path / "app", ["gizmo"], {"extensions/gizmo.py": mount_file("gizmo")})
    env = {**os.environ, "EVE_HOME": str(tmp_path / "home"), "NO_COLOR": "1"}
    with subprocess.Popen([sys.executable, "-m", "eve_build", "dev", "--no-serve", "--path",
                           str(root)],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          env=env) as process:
        try:
            assert process.stdout is not None
            first = process.stdout.readline()  # blocks until the first generation is ready
            process.send_signal(signal.SIGINT)
            stdout, stderr = process.communicate(timeout=60)
        finally:
            if process.poll() is None:
                process.kill()

    assert first == ("generation 1 ready; rebuilt gizmo (1 tool, 1 hook, 2 instructions, "
                     "1 mount)\n")
    assert process.returncode == 130
    assert stderr.splitlines()[-1] == "stopped"
    assert "Traceback" not in stderr
    assert "KeyboardInterrupt" not in stderr
    assert stdout == ""


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT delivery is POSIX here")
def test_ctrl_c_stops_dev_serving_with_130(tmp_path: Path) -> None:
    root = make_app(tmp_path / "app", ["gizmo"], {"extensions/gizmo.py": mount_file("gizmo")})
    env = {**os.environ, "EVE_HOME": str(tmp_path / "home"), "NO_COLOR": "1"}
    with subprocess.Popen([sys.executable, "-m", "eve_build", "dev", "--port", "0",
                           "--path", str(root)],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          env=env) as process:
        try:
            assert process.stdout is not None
            seen = [process.stdout.readline(), process.stdout.readline()]
            process.send_signal(signal.SIGINT)  # what Ctrl-C in the terminal sends
            _, stderr = process.communicate(timeout=60)
        finally:
            if process.poll() is None:
                process.kill()

    assert any(line.startswith("serving on http://127.0.0.1:") for line in seen), seen
    assert any(line.startswith("generation 1 ready") for line in seen), seen
    assert process.returncode == 130, stderr
    assert stderr.splitlines()[-1] == "stopped on SIGINT"
    assert "Traceback" not in stderr
    assert "KeyboardInterrupt" not in stderr
