"""The README opens with the two set-up commands, and `.ci/run` runs the second."""

from __future__ import annotations

import re

from tests.conftest import REPO


def _commands() -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    return re.findall(r"```sh\n(.+?)\n```", text)


def test_readme_opens_with_two_commands() -> None:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    first, second = _commands()[:2]
    assert text.index(first) < text.index(second) < text.index("## ")
    assert "eve build --path fixtures/demo" in first
    assert "pip install -q -e '.[agent]'" in first
    assert first.endswith("eve run 'find ada' --model test --path fixtures/demo")
    assert second.endswith("python -m pytest -q -n auto")  # pytest-xdist: every core


def test_ci_runs_the_readme_test_command() -> None:
    script = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert _commands()[1] in script
