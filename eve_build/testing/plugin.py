"""The `eve` pytest plugin: fixtures that load an extension or an agent in one line.

    def test_greet(eve_extension):
        ext = eve_extension(greeting="Hi")
        assert ext.call("greet", {"name": "Ada"}).value == {"message": "Hi, Ada!"}

    def test_agent(eve_agent):
        agent = eve_agent("path/to/app")
        assert agent.call("crm__search", {"query": "ada"}).ok

Relative paths are taken from the test's own project: the nearest folder above the
test file that holds a pyproject.toml (a workspace member, when pytest runs at the
workspace root), else the pytest root folder. Every harness a test opens
is closed when the test ends. This module is imported by every pytest session of
every environment that has eve-build installed, so it imports nothing heavy: the
fixtures import the harness when they run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import pytest

if TYPE_CHECKING:
    from eve_build.testing.harness import AgentHarness, ExtensionHarness

Harness = TypeVar("Harness", "ExtensionHarness", "AgentHarness")


@pytest.fixture
def eve_extension(request: pytest.FixtureRequest) -> Iterator[Callable[..., ExtensionHarness]]:
    """`eve_extension(path=".", **config)`: build the extension at path, mount it, return it."""
    from eve_build.testing.harness import load_extension

    yield from _opening(request, load_extension)


@pytest.fixture
def eve_agent(request: pytest.FixtureRequest) -> Iterator[Callable[..., AgentHarness]]:
    """`eve_agent(app_path)`: build the agent app with `eve build`, load it, return it."""
    from eve_build.testing.harness import load_app

    yield from _opening(request, load_app)


def _opening(
    request: pytest.FixtureRequest, load: Callable[..., Harness]
) -> Iterator[Callable[..., Harness]]:
    """A factory that loads relative to the test's project; everything it opened closes after."""
    opened: list[Harness] = []

    def factory(path: str | Path = ".", **options: Any) -> Harness:
        harness = load(_from_root(request, path), **options)
        opened.append(harness)
        return harness

    yield factory
    for harness in reversed(opened):
        harness.close()


def _from_root(request: pytest.FixtureRequest, path: str | Path) -> Path:
    candidate = Path(path)
    return candidate if candidate.is_absolute() else locate_test_project(request) / candidate


def locate_test_project(request: pytest.FixtureRequest) -> Path:
    """The project the test belongs to: the nearest folder above its file with a
    pyproject.toml, up to the pytest root folder (in a uv workspace, run from the
    root, that is the member, not the root); the root folder when there is none."""
    root = request.config.rootpath
    folder = Path(request.node.path).parent
    while folder != folder.parent and folder.is_relative_to(root):
        if (folder / "pyproject.toml").is_file():
            return folder
        if folder == root:
            break
        folder = folder.parent
    return root
