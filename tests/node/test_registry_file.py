"""`$EVE_HOME/nodes.json` that is no regular file (issue 26, item 13): a diagnostic."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def test_a_registry_linked_to_dev_zero_is_refused_not_read(home: Path) -> None:
    (home / "nodes.json").symlink_to("/dev/zero")

    done = subprocess.run([sys.executable, "-m", "eve_build", "ext", "list"],
                          env={**os.environ, "EVE_HOME": str(home)}, capture_output=True,
                          text=True, timeout=60, check=False)

    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr and "internal/unexpected" not in done.stderr
    assert "nodes.json" in done.stderr and "character device" in done.stderr, done.stderr
