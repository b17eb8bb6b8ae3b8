"""An agent pyproject.toml nested 100000 deep (issue 26, item 13) is read like one that is
not TOML at all: no RecursionError reaches the user."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

DEEP = ('[project]\nname = "deep"\nversion = "0"\nx = ' + "[" * 100_000 + "]" * 100_000
        + "\n")


@pytest.mark.parametrize("command", [("build",), ("info",)])
def test_a_deeply_nested_agent_pyproject_is_no_traceback(tmp_path: Path,
                                                         command: tuple[str, ...]) -> None:
    broken, deep = tmp_path / "broken", tmp_path / "deep"
    for root, text in ((broken, "[project\nname ="), (deep, DEEP)):
        (root / "agent").mkdir(parents=True)
        (root / "agent/instructions.md").write_text("You are a test agent.\n")
        (root / "pyproject.toml").write_text(text)

    runs = [subprocess.run([sys.executable, "-m", "eve_build", *command, "--path", str(root)],
                           capture_output=True, text=True, timeout=120, check=False)
            for root in (broken, deep)]

    for done in runs:
        assert "internal/unexpected" not in done.stderr + done.stdout, done.stderr
        assert "Traceback" not in done.stderr, done.stderr
    assert runs[1].returncode == runs[0].returncode, runs[1].stderr
