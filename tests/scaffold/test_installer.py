"""Which installer `init` uses without uv: the running pip through `--python` when it can."""

from __future__ import annotations

import sys
from pathlib import Path

from packaging.version import Version

from eve_build.scaffold.installer import (
    can_install_from_outside,
    derive_installer,
    locate_pip_wheel,
)

PYTHON = Path("/p/demo/.venv/bin/python")


def test_a_pip_with_the_python_option_installs_from_outside() -> None:
    assert can_install_from_outside(Version("22.3"))
    assert can_install_from_outside(Version("25.1.1"))
    assert not can_install_from_outside(Version("22.2.2"))


def test_from_outside_the_venv_is_created_without_pip_and_gets_one_in_the_install() -> None:
    installer = derive_installer(PYTHON, uv=None, outside=True)

    assert installer.create == (sys.executable, "-m", "venv", "--without-pip", ".venv")
    assert installer.install[:5] == (sys.executable, "-m", "pip", "--python", str(PYTHON))
    assert "--no-compile" in installer.install
    assert installer.own_pip == (locate_pip_wheel(),)


def test_otherwise_the_venv_gets_its_own_pip_which_installs() -> None:
    installer = derive_installer(PYTHON, uv=None, outside=False)

    assert installer.create == (sys.executable, "-m", "venv", ".venv")
    assert installer.install[:4] == (str(PYTHON), "-m", "pip", "install")
    assert installer.own_pip == ()


def test_uv_creates_and_installs_and_gives_the_venv_a_pip() -> None:
    installer = derive_installer(PYTHON, uv="/bin/uv", outside=True)

    assert installer.create[:2] == ("/bin/uv", "venv")
    assert installer.install == ("/bin/uv", "pip", "install", "--quiet", "--python", str(PYTHON))
    assert installer.own_pip == ("pip",)  # `.venv/bin/python -m pip` works, as README says
    assert installer.label == " (uv)"


def test_the_venvs_pip_is_the_wheel_ensurepip_bundles() -> None:
    wheel = locate_pip_wheel()

    # a Python without the bundled wheels (some distributions strip them) gets pip from
    # the index; a standard CPython has the wheel
    assert wheel == "pip" or (Path(wheel).name.startswith("pip-") and Path(wheel).is_file())
