"""The installer `eve extension init` sets up `.venv` with: uv, or venv + pip.

With uv on PATH, uv creates the venv and installs, pip included (a uv venv has no
pip, and the scaffold's README and AGENTS.md, like every hint eve prints, say
`.venv/bin/python -m pip`: they must work in the venv init made). Without it, the venv is created
`--without-pip` and the pip that runs eve-build installs into it through
`pip --python` (pip >= 22.3): bootstrapping pip into a venv with `ensurepip` took
8-10 s of a 30 s `init`. The venv still gets a pip of its own, as users of a venv
expect `.venv/bin/pip`, but as one more wheel of the first install (the wheel
`ensurepip` bundles, else `pip` from the index), not by a second installer run.
Where the running environment has no pip, or one too old for `--python`, the venv is
created with its own pip and that pip installs, as before.

eve-build's dependencies come re-packed from the running environment when they can
(`eve_build.scaffold.wheelhouse`), so pip does not resolve them on the index.
Installs never compile bytecode (`--no-compile`, uv's default too): the venv is
writable, so Python writes each module's bytecode the first time it is imported,
and compiling every module of every dependency up front took seconds.
"""

from __future__ import annotations

import ensurepip
import shutil
import sys
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from packaging.version import InvalidVersion, Version

PIP_WITH_PYTHON_OPTION = Version("22.3")
"""The first pip with `--python`, which installs into another interpreter's environment."""
PIP_QUIET = ("-q", "--no-compile", "--no-input", "--disable-pip-version-check")
UV_QUIET = ("--quiet",)


@dataclass(frozen=True)
class Installer:
    """The commands that create `.venv` and install into it."""

    create: tuple[str, ...]
    """Creates `.venv` in the package folder."""
    install: tuple[str, ...]
    """Installs into `.venv`; the requirements and options follow."""
    own_pip: tuple[str, ...] = ()
    """Added to the first install: the venv's own pip, when `create` gives it none."""
    label: str = ""
    """Shown after each step: ` (uv)` or nothing."""


def locate_uv() -> str | None:
    """The `uv` executable when it is on PATH."""
    return shutil.which("uv")


def find_running_pip_version() -> Version | None:
    """The version of the pip installed beside the running eve-build, if any."""
    try:
        return Version(metadata.version("pip"))
    except (metadata.PackageNotFoundError, InvalidVersion):
        return None


def can_install_from_outside(pip_version: Version | None = None) -> bool:
    """Whether the running environment's pip can install into another venv (`--python`)."""
    version = pip_version if pip_version is not None else find_running_pip_version()
    return version is not None and version >= PIP_WITH_PYTHON_OPTION


def locate_pip_wheel() -> str:
    """The pip wheel bundled with this interpreter's `ensurepip`, else `pip` (the index)."""
    bundled = Path(ensurepip.__file__).parent / "_bundled"
    wheels = sorted(bundled.glob("pip-*.whl")) if bundled.is_dir() else []
    return str(wheels[-1]) if wheels else "pip"


def derive_installer(python: Path, *, uv: str | None, outside: bool) -> Installer:
    """The installer for the venv whose interpreter will be `python`.

    Args:
        python: `.venv`'s interpreter (`steps.derive_venv_python`).
        uv: the uv executable, or None for venv + pip.
        outside: install with the running environment's pip (`can_install_from_outside`).
    """
    if uv is not None:
        return Installer(
            create=(uv, "venv", *UV_QUIET, "--python", sys.executable, ".venv"),
            install=(uv, "pip", "install", *UV_QUIET, "--python", str(python)),
            own_pip=("pip",),  # uv's venv has none; README, AGENTS and hints say `-m pip`
            label=" (uv)",
        )
    if outside:
        return Installer(
            create=(sys.executable, "-m", "venv", "--without-pip", ".venv"),
            install=(sys.executable, "-m", "pip", "--python", str(python), "install", *PIP_QUIET),
            own_pip=(locate_pip_wheel(),),
        )
    return Installer(
        create=(sys.executable, "-m", "venv", ".venv"),
        install=(str(python), "-m", "pip", "install", *PIP_QUIET),
    )
