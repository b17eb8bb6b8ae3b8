"""Text from extension code is shown with its control characters escaped (issue 23 item 7).

`ESC[2J` in a notice, a command reply, an error or a guideline would clear the user's
screen; a `\\r` overwrites a line, `\\u202e` reverses it. Real `eve` processes, a real
node and a script; no byte of a control sequence may reach stdout, stderr or a log.
"""

from __future__ import annotations

import io
import logging
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from eve_build.controls import derive_log_handler, escape_controls
from eve_build.node.lifecycle import StartReport

Run = Callable[[str, str], StartReport]
RAW = ("\x1b", "\x07", "\r", "\u202e", "\x9b")


def _eve(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "eve_build", *args], capture_output=True,
                          text=True, timeout=120, env={**os.environ, "EVE_HOME": str(home),
                                                       "NO_COLOR": "1"})


def _clean(text: str) -> bool:
    return not any(raw in text for raw in RAW)


def test_escape_controls_keeps_layout_and_shows_the_rest() -> None:
    assert escape_controls("plain ünï text") == "plain ünï text"
    assert escape_controls("a\n\tb") == "a\n\tb"
    assert escape_controls("\x1b[2J\r\x00\x7f\x9b\u202e") == "\\x1b[2J\\x0d\\x00\\x7f\\x9b\\u202e"


def test_a_node_cannot_write_escape_sequences_to_the_terminal(
        app: Path, home: Path, run_node: Run) -> None:
    report = run_node("escape-node", "esc")
    called = _eve(home, "call", "loud", "{}", "--path", str(app))
    assert called.returncode == 1
    assert _clean(called.stdout) and _clean(called.stderr), repr(called.stderr)
    assert "esc: \\x1b[2J\\x1b[Hcleared" in called.stderr  # the notice, visible
    assert "RuntimeError: \\x1b[31mred\\x0dover\\u202eevil" in called.stderr
    assert "\\x1b]0;pwned\\x07title" in called.stderr
    replied = _eve(home, "command", "paint", "--path", str(app))
    assert replied.returncode == 0, replied.stderr
    assert _clean(replied.stdout) and _clean(replied.stderr)
    assert "\\x1b[2J\\x1b[Hpainted\n\tindented" in replied.stdout  # layout kept
    prompt = _eve(home, "prompt", "--path", str(app))
    assert _clean(prompt.stdout) and "\\x1b[2J\\x1b[Ha guideline" in prompt.stdout
    log = report.log.read_text(encoding="utf-8")
    assert "\\x1b[2J\\x1b[Hstarting" in log and "\x1b" not in log


def test_a_script_cannot_either(app: Path, home: Path, tmp_path: Path) -> None:
    script = tmp_path / "noisy.py"
    script.write_text(
        "from eve_build.sdk import Spec, define_command\n\n\n"
        "def setup(ctx):\n"
        "    ctx.notify('\\x1b[2Jwiped', level='\\x1b[5mwarning')\n"
        "    return Spec(commands={'boom': define_command(description='\\x1b[8m', run=boom)})\n\n\n"
        "def boom(args, ctx):\n"
        "    raise ValueError('\\x1b[2Jgone')\n")
    done = _eve(home, "command", "boom", "-e", str(script), "--path", str(app))
    assert _clean(done.stdout) and _clean(done.stderr), repr(done.stderr)
    assert "ValueError: \\x1b[2Jgone" in done.stdout + done.stderr
    assert "\\x1b[2Jwiped" in done.stderr


def test_log_lines_are_escaped() -> None:
    stream = io.StringIO()
    handler = derive_log_handler("%(levelname)s: %(message)s")
    handler.setStream(stream)
    logger = logging.getLogger("eve_build.tests.escape")
    logger.addHandler(handler)
    try:
        logger.warning("node `%s` dropped: it %s", "x", "sent \x1b[2J")
        try:
            raise RuntimeError("\x1b[31m in a traceback")
        except RuntimeError:
            logger.exception("failed")
    finally:
        logger.removeHandler(handler)
    text = stream.getvalue()
    assert "\x1b" not in text
    assert "WARNING: node `x` dropped: it sent \\x1b[2J" in text
    assert "RuntimeError: \\x1b[31m in a traceback" in text
