"""Running other programs (git, pip, venv, the `build` frontend) behind one seam.

Core code takes a `Runner`, so tests replace subprocesses with a fake that records
the commands; `run_subprocess` is the real one.
"""

from __future__ import annotations

import re
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


DECISIVE_PATTERNS = (
    re.compile(r"No matching distribution found for .+"),
    re.compile(r"Could not find a version that satisfies the requirement .+"),
    re.compile(r"^\s*(?:[A-Za-z_][\w.]*)?(?:Error|Exception): .+"),
    re.compile(r"(?:^|\s)(?:ERROR|error)\b:?\s+\S.*"),
)
"""What says why a frontend failed, strongest first: pip's resolver verdicts, then the
exception line that ends a traceback (the backend's, hatchling's, a build hook's: the
real reason), then an `ERROR` line."""
WRAPPER_PATTERNS = (
    re.compile(r"^ERROR Backend subprocess exited"),  # build: the backend failed, see above
    re.compile(r"^ERROR Failed to install requirements"),  # build: the resolver said why
    re.compile(r"^error: (?:subprocess-exited-with-error|metadata-generation-failed)"),  # pip
    re.compile(r"^ERROR: Failed (?:building|to build)"),  # pip
    re.compile(r"^(?:note|hint): (?:This (?:error|is an issue)|See above)"),  # pip
)
"""Lines that only say that something below failed: never the decisive line."""


MISSING_DISTRIBUTION = re.compile(r"No matching distribution found for (\S.*?)\s*$")
"""pip's verdict on a requirement no index (nor `PIP_FIND_LINKS`) offers."""


def find_missing_requirement(output: str) -> str | None:
    """The requirement pip said it found no distribution for (`hatchling>=1.25`), or None."""
    for line in output.splitlines():
        found = MISSING_DISTRIBUTION.search(line)
        if found:
            return found.group(1)
    return None


def find_decisive_line(output: str) -> str | None:
    """The one line of a failed command's output that says why it failed, or None."""
    # build prefixes the output of the commands it runs with `<` / `>` / `*`
    lines = [line.strip().lstrip("<>* ").strip() for line in output.splitlines() if line.strip()]
    lines = [line for line in lines if not any(p.search(line) for p in WRAPPER_PATTERNS)]
    for pattern in DECISIVE_PATTERNS:
        found = [line for line in lines if pattern.search(line)]
        if found:
            return found[-1] if pattern is DECISIVE_PATTERNS[2] else found[0]
    return None
