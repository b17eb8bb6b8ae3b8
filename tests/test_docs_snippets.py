"""Every snippet in docs/ (and the README) marked runnable (```python runnable,
```console runnable) runs, from a copy of the repository's fixtures, and a console
snippet prints exactly the output shown under each `$` command."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, REPO, copy_fixture_tree

FENCE = re.compile(r"^```(python|console) runnable\n(.*?)^```", re.MULTILINE | re.DOTALL)
PAGES = sorted([*(REPO / "docs").rglob("*.md"), REPO / "README.md"])


def _snippets() -> list[tuple[str, str, str]]:
    found = []
    for page in PAGES:
        for match in FENCE.finditer(page.read_text(encoding="utf-8")):
            line = page.read_text(encoding="utf-8")[: match.start()].count("\n") + 1
            found.append((f"{page.relative_to(REPO).as_posix()}:{line}", match[1], match[2]))
    return found


SNIPPETS = _snippets()


def _commands(text: str) -> list[tuple[str, str]]:
    """(command, expected output) for each `$ ` line of a console snippet."""
    pairs: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        if line.startswith("$ "):
            pairs.append((line[2:], []))
        elif pairs:
            pairs[-1][1].append(line)
    return [(command, "\n".join(lines)) for command, lines in pairs]


@pytest.fixture
def workdir(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    copy_fixture_tree(FIXTURES, tmp_path / "fixtures")
    env = {**os.environ, "EVE_HOME": str(tmp_path / "eve-home"), "NO_COLOR": "1",
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    return tmp_path, env


def test_some_snippets_are_marked_runnable() -> None:
    assert {kind for _, kind, _ in SNIPPETS} == {"python", "console"}


@pytest.mark.parametrize(("where", "kind", "text"), SNIPPETS, ids=[s[0] for s in SNIPPETS])
def test_snippet_runs(where: str, kind: str, text: str,
                      workdir: tuple[Path, dict[str, str]]) -> None:
    cwd, env = workdir
    if kind == "python":
        result = subprocess.run([sys.executable, "-c", text], cwd=cwd, env=env,
                                capture_output=True, text=True, timeout=120, check=False)
        assert result.returncode == 0, f"{where}\n{result.stderr}"
        return
    for command, expected in _commands(text):
        result = subprocess.run(["bash", "-c", command], cwd=cwd, env=env,
                                capture_output=True, text=True, timeout=120, check=False)
        assert "Traceback" not in result.stderr, f"{where}: {command}\n{result.stderr}"
        assert result.stdout.rstrip("\n") == expected, f"{where}: {command}\n{result.stderr}"
