"""Shared fixtures: copies of committed fixture projects, and golden-file control."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "fixtures"
GOLDEN = Path(__file__).resolve().parent / "golden"
FIXTURE_IGNORE = shutil.ignore_patterns("build", "dist", ".eve", "__pycache__", ".venv")
"""Outputs a developer may have left in fixtures/ by running the README's example."""


def copy_fixture_tree(source: Path, target: Path) -> Path:
    """Copy a committed fixture project, symlinks kept as links, outputs left out."""
    shutil.copytree(source, target, symlinks=True, ignore=FIXTURE_IGNORE)
    return target

# Golden trees are expected output, and some hold another project's tests
# (the `eve extension init` scaffold's `tests/test_greet.py`): never collect them.
collect_ignore = ["golden"]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="Rewrite golden files from the current output instead of comparing.",
    )


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))


@pytest.fixture
def copy_fixture(tmp_path: Path) -> Callable[[str], Path]:
    """Copy `fixtures/<relative>` into tmp_path (symlinks kept as links) and return it."""

    def copy(relative: str) -> Path:
        source = FIXTURES / relative
        target = tmp_path / source.name
        return copy_fixture_tree(source, target)

    return copy


@pytest.fixture(autouse=True)
def eve_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets an empty `EVE_HOME`: tests never read or write the real ~/.eve."""
    home = tmp_path_factory.mktemp("eve-home")
    monkeypatch.setenv("EVE_HOME", str(home))
    return home


@pytest.fixture(autouse=True)
def agent_package_given_back() -> Iterator[None]:
    """A test that loads an agent closes it: afterwards `eve_agent` (the name the agent
    folder imports under) is gone again, or the next test in this worker would import
    that agent's modules (and tests/runtime/test_loading.py would fail far from here)."""
    had = "eve_agent" in sys.modules
    yield
    if not had and "eve_agent" in sys.modules:
        for name in [n for n in sys.modules if n == "eve_agent" or n.startswith("eve_agent.")]:
            del sys.modules[name]
        pytest.fail("this test left an agent open: `eve_agent` is still in sys.modules "
                    "(close what it loaded: `agent.close()`, `app.state.host.close()`)")


@pytest.fixture(autouse=True)
def output_settings_reset() -> Iterator[None]:
    """`-q`/`-v` given to an in-process command (CliRunner) stay in the CLI's process-wide
    output settings; each test starts and ends with the defaults, so a quiet command in
    one test never silences the step printer of the next in this worker."""
    yield
    output = sys.modules.get("eve_build.cli.output")
    if output is not None:
        output.configure()
