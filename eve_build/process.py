"""Running other programs (git, pip, venv, the `build` frontend) behind one seam.

Core code takes a `Runner`, so tests replace subprocesses with a fake that records
the commands; `run_subprocess` is the real one.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path

Runner = Callable[[Sequence[str], Path], tuple[int, str]]
"""(argv, cwd) -> (return code, combined stdout and stderr)."""


def run_subprocess(argv: Sequence[str], cwd: Path) -> tuple[int, str]:
    """The default runner: a real subprocess, no input, output captured."""
    try:
        completed = subprocess.run(
            list(argv),
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            check=False,
        )
    except OSError as exc:
        return 127, str(exc)
    return completed.returncode, completed.stdout


OUTPUT_TAIL_LINES = 20


def derive_output_tail(output: str, lines: int = OUTPUT_TAIL_LINES) -> str:
    """The last `lines` non-blank lines of `output`, indented for an error message."""
    kept = [line for line in output.splitlines() if line.strip()][-lines:]
    return "\n".join(f"  {line}" for line in kept) if kept else "  (no output)"
