"""Runtime test fixtures: agent apps built from fixture extensions, loaded with a budget."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from eve_build.runtime import Agent, load_agent
from tests.runtime.apps import compile_app, make_app

BUDGET = 0.2
"""A small hook budget, so timeouts stay fast."""


@pytest.fixture
def app(tmp_path: Path) -> Callable[..., Path]:
    """`app(extensions, files)`: a compiled app in tmp_path."""

    def create(extensions: list[str], files: dict[str, str]) -> Path:
        root = make_app(tmp_path / "app", extensions, files)
        compile_app(root)
        return root

    return create


@pytest.fixture
def load() -> Iterator[Callable[..., Agent]]:
    """`load(root, **options)`: load_agent with a small budget; closed after the test."""
    opened: list[Agent] = []

    def open_app(root: Path, **options: Any) -> Agent:
        options.setdefault("hook_budget", BUDGET)
        options.setdefault("environ", {})
        agent = load_agent(root, **options)
        opened.append(agent)
        return agent

    yield open_app
    for agent in reversed(opened):
        agent.close()
