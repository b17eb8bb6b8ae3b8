"""The load check's targets exist: a test that moves or is renamed must be named again
there, or the check would fail on its first round without running anything."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO
from tests.load_check import TESTS


def test_every_target_of_the_load_check_is_collected() -> None:
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q",
                           "-p", "no:cacheprovider", "-p", "no:xdist", *TESTS],
                          cwd=REPO, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    collected = [line for line in done.stdout.splitlines() if "::" in line]
    for target in TESTS:
        assert any(line.startswith(target) for line in collected), target
