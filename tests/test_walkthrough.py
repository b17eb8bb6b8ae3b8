"""docs/walkthrough.md cannot drift: every console block of the page marked
```` ```console walk ```` is run here, in order, in a fresh folder that stands for the
page's `/tmp/walk`, and each `$` command's output (stdout and stderr, as the page shows
them) must be what the page shows under it.

    pytest tests/test_walkthrough.py                   # check the page
    pytest tests/test_walkthrough.py --update-golden   # rewrite the page's outputs

The commands run with bash, one after another, each in the folder the previous ones left
(`cd` is followed); `eve` on PATH is the checkout's. Before comparing, both sides are
normalised: the temporary folder becomes `/tmp/walk` (and this checkout
`/tmp/walk/eve-build`), durations (`(4.4 s)`, `in 1.80s`), the versions pytest prints
and the width of its `====` rules are not compared. A block whose expected output ends
with `exit N` also checks the exit code; any other command must exit 0. With
`--update-golden` the outputs are written back into the page (durations as measured).

Blocks the page does not mark (the clone and install, a server waiting for Ctrl-C, a
second terminal) are illustrations; the page says which.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, REPO, copy_fixture_tree

pytestmark = pytest.mark.integration

PAGE = REPO / "docs" / "walkthrough.md"
WALK = "/tmp/walk"
BLOCK = re.compile(r"^```console walk\n(.*?)^```\n", re.MULTILINE | re.DOTALL)
EXIT = re.compile(r"^exit (\d+)$")
TIMEOUT = 900.0


@dataclass
class Command:
    text: str
    expected: list[str] = field(default_factory=list)


def read_blocks(page: str) -> list[tuple[re.Match[str], list[Command]]]:
    """Each walk block of the page with its commands and their expected output lines."""
    found = []
    for match in BLOCK.finditer(page):
        commands: list[Command] = []
        for line in match[1].splitlines():
            if line.startswith("$ "):
                commands.append(Command(line[2:]))
            elif commands:
                commands[-1].expected.append(line)
        found.append((match, commands))
    return found


def normalise(text: str) -> str:
    text = re.sub(r"\(\d+(\.\d+)? s\)", "(N s)", text)
    text = re.sub(r" in \d+(\.\d+)?s\b", " in Ns", text)
    text = re.sub(r"(Python|pytest|pluggy)[- ]\d[\w.]*", r"\1-X", text)
    text = re.sub(r"^plugins: .*$", "plugins: ...", text, flags=re.MULTILINE)
    text = re.sub(r"^=+ (.*?) =+$", r"== \1 ==", text, flags=re.MULTILINE)  # pytest's rules
    return text.rstrip("\n")


class Shell:
    """Runs the page's commands one after another, remembering the folder."""

    def __init__(self, root: Path, env: dict[str, str]) -> None:
        self.root, self.cwd, self.env = root, root, env

    def run(self, command: str) -> tuple[str, int]:
        marker = "__eve_walk_cwd__"
        script = f"{command}\n__status=$?\necho; echo {marker}\"$PWD\"; exit $__status\n"
        done = subprocess.run(["bash", "-c", script], cwd=self.cwd, env=self.env, text=True,
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=TIMEOUT, check=False)
        output, _, where = done.stdout.rpartition(marker)
        self.cwd = Path(where.strip())
        shown = output.removesuffix("\n").replace(str(self.root), WALK)
        return shown.replace(str(REPO), f"{WALK}/eve-build"), done.returncode


def _shown(output: str, status: int, expected: list[str]) -> list[str]:
    """The output as the page writes it: `exit N` after it when the page shows one there
    or the command failed."""
    lines = output.splitlines() if output else []
    if (expected and EXIT.match(expected[-1])) or status != 0:
        lines.append(f"exit {status}")
    return lines


@pytest.fixture
def shell(tmp_path: Path) -> Shell:
    """`/tmp/walk` with the clone in `eve-build/` (its fixtures, and `.venv` standing for
    the venv section 1 makes: this checkout's)."""
    root = tmp_path / "walk"
    clone = root / "eve-build"
    clone.mkdir(parents=True)
    copy_fixture_tree(FIXTURES, clone / "fixtures")
    (clone / ".venv").symlink_to(Path(sys.prefix))
    # The page's machine: `eve` and `python` of the clone's venv on PATH, and no `uv`.
    tools = tmp_path / "bin"
    tools.mkdir()
    for name in ("eve", "python", "python3"):
        (tools / name).symlink_to(Path(sys.executable).parent / name)
    path = [str(tools), *(entry for entry in os.environ.get("PATH", "").split(os.pathsep)
                          if entry and not (Path(entry) / "uv").exists())]
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTEST_VERSION", "PYTEST_XDIST_WORKER")}
    env.update({"NO_COLOR": "1", "EVE_HOME": str(tmp_path / "eve-home"), "COLUMNS": "80",
                "PATH": os.pathsep.join(path)})
    shell = Shell(root, env)
    shell.cwd = clone
    return shell


def test_the_page_marks_its_runnable_blocks() -> None:
    blocks = read_blocks(PAGE.read_text(encoding="utf-8"))
    assert len(blocks) >= 3
    assert all(commands for _, commands in blocks)


def test_the_walkthrough_prints_what_the_page_shows(shell: Shell, update_golden: bool) -> None:
    page = PAGE.read_text(encoding="utf-8")
    differences: list[str] = []
    rewritten: list[tuple[re.Match[str], str]] = []
    for match, commands in read_blocks(page):
        lines: list[str] = []
        for command in commands:
            output, status = shell.run(command.text)
            actual = _shown(output, status, command.expected)
            lines += [f"$ {command.text}", *actual]
            if normalise("\n".join(actual)) != normalise("\n".join(command.expected)):
                differences.append(f"$ {command.text}\n--- the page shows:\n"
                                   + "\n".join(command.expected)
                                   + "\n--- it printed:\n" + "\n".join(actual))
        rewritten.append((match, "```console walk\n" + "\n".join(lines) + "\n```\n"))
    if update_golden:
        for match, text in reversed(rewritten):
            page = page[:match.start()] + text + page[match.end():]
        PAGE.write_text(page, encoding="utf-8")
        return
    assert not differences, ("docs/walkthrough.md drifted (rewrite it with "
                             "`pytest tests/test_walkthrough.py --update-golden`):\n\n"
                             + "\n\n".join(differences))
