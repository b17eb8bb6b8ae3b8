"""Colour on a terminal, none when piped or with NO_COLOR: `eve` run for real, in a pty."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

ESC = "\x1b["
ARGS = [sys.executable, "-m", "eve_build", "extension", "build"]


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE", "COLUMNS")}
    return {**env, "TERM": "xterm-256color", "EVE_HOME": str(tmp_path / "home"), **extra}


def _run_in_terminal(tmp_path: Path, args: list[str] = ARGS, code: int = 1,
                     **extra: str) -> str:
    leader, follower = pty.openpty()
    with subprocess.Popen(args, cwd=tmp_path, env=_env(tmp_path, **extra), stdin=follower,
                          stdout=follower, stderr=follower) as process:
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
        assert process.wait(timeout=60) == code
    os.close(leader)
    return b"".join(chunks).decode()


@pytest.mark.skipif(sys.platform == "win32", reason="pty is POSIX")
def test_errors_are_coloured_on_a_terminal(tmp_path: Path) -> None:
    output = _run_in_terminal(tmp_path)

    assert "project/pyproject-missing" in output
    assert ESC in output


@pytest.mark.skipif(sys.platform == "win32", reason="pty is POSIX")
def test_no_colour_with_no_color_even_on_a_terminal(tmp_path: Path) -> None:
    output = _run_in_terminal(tmp_path, NO_COLOR="1")

    assert "project/pyproject-missing" in output
    assert ESC not in output


def test_no_colour_when_piped(tmp_path: Path) -> None:
    result = subprocess.run(ARGS, cwd=tmp_path, env=_env(tmp_path), capture_output=True,
                            text=True, timeout=60, check=False)

    assert result.returncode == 1
    assert "project/pyproject-missing" in result.stderr
    assert ESC not in result.stderr + result.stdout
    assert "Traceback" not in result.stderr


USAGE_ERROR = [sys.executable, "-m", "eve_build", "dev", "--path", "missing"]


@pytest.mark.skipif(sys.platform == "win32", reason="pty is POSIX")
def test_usage_errors_are_boxed_on_a_terminal_and_plain_when_piped(tmp_path: Path) -> None:
    boxed = _run_in_terminal(tmp_path, USAGE_ERROR, code=2)
    piped = subprocess.run(USAGE_ERROR, cwd=tmp_path, env=_env(tmp_path), capture_output=True,
                           text=True, timeout=60, check=False)

    assert "╭" in boxed and ESC in boxed
    assert piped.returncode == 2
    last = piped.stderr.splitlines()[-1]
    assert last.startswith("Error: Invalid value for '--path': ")
    assert last.endswith(" 'missing' does not exist.")
    assert "╭" not in piped.stderr and ESC not in piped.stderr
