"""A second define_state() of one name is `state/name-duplicate` at the file and line of
the second call, naming the first one's file and line: in an extension (`eve extension
build`, the build workers) and in an agent's own modules (`eve build`, in process)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import FIXTURES
from tests.runtime.apps import make_app

TALLY = '''\
from pydantic import BaseModel

from eve_build.sdk import define_state, define_tool

count = define_state("count", int)


class Nothing(BaseModel):
    pass


tool = define_tool(description="Tally.", input=Nothing, execute=lambda input, ctx: {})
'''
SCORE = '''\
from pydantic import BaseModel

from eve_build.sdk import define_state, define_tool

total = define_state("total", int)
again = define_state("count", lambda: 0)


class Nothing(BaseModel):
    pass


tool = define_tool(description="Score.", input=Nothing, execute=lambda input, ctx: {})
'''


def _eve(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "eve_build", *args, "--path", str(cwd)],
                          capture_output=True, text=True, timeout=300, check=False,
                          env={**os.environ, "NO_COLOR": "1", "EVE_HOME": str(cwd / "home")})


def _expect_duplicate(done: subprocess.CompletedProcess[str], folder: str) -> None:
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert (f"{folder}tools/tally.py:5: error state/name-duplicate: the state `count` is also "
            f"defined in `{folder}tools/score.py:6`") in done.stderr, done.stderr


def test_a_duplicate_state_in_an_extension_carries_both_lines(tmp_path: Path) -> None:
    root = shutil.copytree(FIXTURES / "extensions/gizmo", tmp_path / "gizmo",
                           ignore=shutil.ignore_patterns("build", "dist"))
    (root / "extension/tools/tally.py").write_text(TALLY)
    (root / "extension/tools/score.py").write_text(SCORE)

    _expect_duplicate(_eve(root, "extension", "build"), "extension/")


def test_a_duplicate_state_in_the_agent_carries_both_lines(tmp_path: Path) -> None:
    (tmp_path / "app").mkdir()
    root = make_app(tmp_path / "app", [], {"tools/tally.py": TALLY, "tools/score.py": SCORE})

    _expect_duplicate(_eve(root, "build"), "agent/")
