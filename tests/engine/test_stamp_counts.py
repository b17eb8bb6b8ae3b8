"""A build the stamp skips reports the counts of the output it stands for (issue 26,
item 14), read from the output's manifest, never the counts a stamp file says."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from eve_build.engine.stamp import STAMP_FILE
from eve_build.extension.build import build_extension


def test_a_skipped_build_reports_the_counts_of_the_output_not_of_the_stamp(
        copy_fixture: Callable[[str], Path], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVE_CACHE_DIR", str(tmp_path / "cache"))
    root = copy_fixture("extensions/gizmo")
    first = build_extension(root)
    assert first.tools == 1
    stamp = tmp_path / "cache" / STAMP_FILE
    data = json.loads(stamp.read_text())
    data["tools"], data["requires"] = 7, {"eve": ">=99"}
    stamp.write_text(json.dumps(data))

    done = subprocess.run([sys.executable, "-m", "eve_build", "extension", "build"],
                          cwd=root, capture_output=True, text=True, timeout=120, check=False,
                          env={**os.environ, "EVE_CACHE_DIR": str(tmp_path / "cache")})
    again = build_extension(root)

    assert done.returncode == 0, done.stderr
    assert "7 tools" not in done.stdout and "1 tool" in done.stdout, done.stdout
    assert (again.tools, again.requires) == (first.tools, first.requires)
    assert again.checked is False  # skipped: the output is as the stamp recorded it
