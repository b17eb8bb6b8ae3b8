"""Control characters in text that came from extension code, made visible instead of run.

A node or a local extension can put `ESC[2J` (clear the screen), a carriage return
(overwrite the line) or a bidi override (reorder what the user reads) into a notice,
a command reply, an error message or a name that a diagnostic quotes. Everything
the CLI prints and every log line goes through `escape_controls` once, at the
output boundary (`eve_build/cli/output.py`, `derive_log_handler`), so such
text is shown as `\\x1b[2J` and never reaches the terminal as a command. Newline and
tab are kept: they are layout.

    escape_controls("a\\x1b[2Jb")   # 'a\\\\x1b[2Jb'
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # logging is imported by the commands that log, not by `eve --help`
    import logging

CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
"""C0 controls but tab and newline, DEL, C1 controls (CSI is U+009B), bidi overrides."""
ALL_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
"""The same with tab and newline: in a name they are not layout."""


def escape_controls(text: str, *, layout: bool = True) -> str:
    """`text` with every control character written as a Python escape (`\\x1b`, `\\u202e`).

    `layout=False` escapes newline and tab too (for names quoted in one line).
    """
    pattern = CONTROLS if layout else ALL_CONTROLS
    if pattern.search(text) is None:  # the common case: nothing to do, no copy
        return text
    return pattern.sub(_escaped, text)


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def derive_log_handler(format: str) -> logging.Handler:
    """A stderr handler for `logging.basicConfig(handlers=[...])` whose lines carry no
    control characters (tracebacks included)."""
    import logging

    class ControlEscapingFormatter(logging.Formatter):
        def format(self, record: logging.LogRecord) -> str:
            return escape_controls(super().format(record))

    handler = logging.StreamHandler()
    handler.setFormatter(ControlEscapingFormatter(format))
    return handler
