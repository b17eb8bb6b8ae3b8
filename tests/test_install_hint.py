"""Install hints name a command that works in the environment eve runs in."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from eve_build.install_hint import derive_install_hint


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
