"""Install hints name a command that works in the environment eve runs in."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from eve_build.install_hint import derive_extra_hint, derive_install_hint, find_extra_requirements


def test_with_pip_the_running_interpreter_installs() -> None:
    assert derive_install_hint("build", python=".venv/bin/python", has_pip=True) == \
        ".venv/bin/python -m pip install build"


def test_without_pip_uv_installs_into_the_running_interpreter() -> None:
    assert derive_install_hint("build", "twine>=5", python=".venv/bin/python", has_pip=False,
                               uv="/bin/uv") == \
        "uv pip install --python .venv/bin/python build 'twine>=5'"


def test_without_pip_or_uv_pip_is_bootstrapped_first() -> None:
    assert derive_install_hint("build", python="py", has_pip=False, uv=None) == \
        "py -m ensurepip && py -m pip install build"


def test_the_interpreter_is_shown_relative_inside_the_current_folder(
        monkeypatch: pytest.MonkeyPatch) -> None:
    python = Path(sys.executable).absolute()
    monkeypatch.chdir(python.parent.parent)
    assert derive_install_hint("build", has_pip=True) == \
        f"{python.parent.name}{os.sep}{python.name} -m pip install build"


def test_the_uv_hint_works_in_a_venv_uv_made_without_pip(tmp_path: Path) -> None:
    uv = shutil.which("uv", path=str(Path(sys.executable).parent))
    assert uv is not None, "uv comes with the test extra"
    venv = tmp_path / "venv"
    subprocess.run([uv, "venv", "--quiet", str(venv)], check=True, timeout=120)
    python = str(venv / "bin" / "python")
    hint = derive_install_hint("iniconfig", python=python, has_pip=False, uv=uv)
    done = subprocess.run(hint.replace("uv ", f"{uv} ", 1), shell=True, text=True,
                          capture_output=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert subprocess.run([python, "-c", "import iniconfig"], timeout=60).returncode == 0


REQUIRES = [
    "typer>=0.27",
    "pydantic-ai-slim[openai]<3,>=2.68; extra == 'agent'",
    "starlette>=0.37; extra == 'serve'",
    "httpx>=0.27; extra == 'serve'",
    "eve-build[serve]; extra == 'test'",
    "pytest>=8; extra == 'test'",
]


def test_an_extras_packages_come_from_the_metadata_with_self_extras_expanded() -> None:
    assert find_extra_requirements("agent", REQUIRES) == ["pydantic-ai-slim[openai]<3,>=2.68"]
    assert find_extra_requirements("test", REQUIRES) == [
        "pytest>=8", "starlette>=0.37", "httpx>=0.27"]
    assert find_extra_requirements("nope", REQUIRES) == []


def test_an_extra_hint_names_packages_that_install_without_eve_build_on_an_index() -> None:
    hint = derive_extra_hint("agent", requires=REQUIRES, python="py", has_pip=True)
    assert hint == ("install the `agent` extra's packages: "
                    "`py -m pip install 'pydantic-ai-slim[openai]<3,>=2.68'` "
                    "(`eve-build[agent]` once eve-build is on PyPI; docs/installing.md)")
    # no metadata (a bare source tree): the checkout way of docs/installing.md
    assert "'/path/to/eve-build[agent]'" in derive_extra_hint("agent", requires=[])


def test_the_running_eve_builds_extras_are_read(tmp_path: Path) -> None:
    hint = derive_extra_hint("mcp", python="py", has_pip=True)
    assert "`py -m pip install 'mcp<3,>=2.3'`" in hint


def test_the_extra_hint_installs_for_real_where_eve_build_is_no_index_package(
        tmp_path: Path) -> None:
    """The hinted line runs in an environment whose eve-build no index has: pip would
    fail on `eve-build[...]`, the extra's packages install."""
    uv = shutil.which("uv", path=str(Path(sys.executable).parent))
    assert uv is not None, "uv comes with the test extra"
    venv = tmp_path / "venv"
    subprocess.run([uv, "venv", "--quiet", str(venv)], check=True, timeout=120)
    python = str(venv / "bin" / "python")
    requires = ["iniconfig>=1; extra == 'tiny'", "eve-build[tiny]; extra == 'all'"]
    hint = derive_extra_hint("all", requires=requires, python=python, has_pip=False, uv=uv)
    command = hint.split("`")[3]
    done = subprocess.run(command.replace("uv ", f"{uv} ", 1), shell=True, text=True,
                          capture_output=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert subprocess.run([python, "-c", "import iniconfig"], timeout=60).returncode == 0
