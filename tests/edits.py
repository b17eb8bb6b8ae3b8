"""An output edit a size-and-mtime check cannot see, for the tests of shipping checks."""

from __future__ import annotations

import os
from pathlib import Path

SPIN = Path("build/eve/gizmo/extension/tools/spin.py")


def edit_keeping_size_and_mtime(path: Path) -> bytes:
    """Swap two bytes' case (same size), then put the mtime back; returns the original."""
    original = path.read_bytes()
    info = path.stat()
    index = original.index(b"def")
    path.write_bytes(original[:index] + b"DEF" + original[index + 3:])
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))
    assert path.stat().st_size == info.st_size and path.stat().st_mtime_ns == info.st_mtime_ns
    return original
