"""The install command a hint prints: one that works in the environment eve runs in.

    derive_install_hint("build")  # ".venv/bin/python -m pip install build"
    derive_extra_hint("mcp")  # "install the `mcp` extra's packages: `... install 'mcp<3,>=2.3'`"

An extra's hint names the extra's own packages, read from the installed eve-build's
metadata, not `eve-build[agent]`: eve-build is not on PyPI yet, so `pip install
'eve-build[agent]'` cannot work, while the packages install into the running
environment whichever way eve-build came (a checkout, git or a wheel, as
docs/installing.md says) and never replace it.

A venv made by uv has no pip, so `python -m pip install ...` fails there: with pip
importable the hint is the running interpreter's `-m pip install`; without it, `uv pip
install --python ...` when uv is on PATH, else `-m ensurepip` first. The interpreter is
the running one, relative to the current folder when inside it (`python` on PATH may
be another environment's).
"""

from __future__ import annotations

import importlib.util
import os
import shlex
import shutil
import sys
from pathlib import Path

DISTRIBUTION = "eve-build"


def derive_install_hint(*requirements: str, python: str | None = None,
                        has_pip: bool | None = None, uv: str | None = None) -> str:
    """The shell line installing `requirements` into the running environment."""
    shown = python if python is not None else _shown(Path(sys.executable))
    wanted = shlex.join(requirements)
    if has_pip if has_pip is not None else importlib.util.find_spec("pip") is not None:
        return f"{shown} -m pip install {wanted}"
    if (uv if uv is not None else shutil.which("uv")) is not None:
        return f"uv pip install --python {shown} {wanted}"
    return f"{shown} -m ensurepip && {shown} -m pip install {wanted}"


def find_extra_requirements(extra: str, requires: list[str] | None = None) -> list[str]:
    """The requirements eve-build's `extra` adds, its markers dropped and extras of
    eve-build itself (`eve-build[serve]` in `test`) expanded; empty when unknown.

    Args:
        requires: `Requires-Dist` lines; the installed eve-build's when None.
    """
    from importlib import metadata

    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.utils import canonicalize_name

    if requires is None:
        try:
            requires = metadata.requires(DISTRIBUTION) or []
        except metadata.PackageNotFoundError:
            return []
    found: list[str] = []
    pending, seen = [extra], set()
    while pending:
        wanted = pending.pop(0)
        if wanted in seen:
            continue
        seen.add(wanted)
        for line in requires:
            try:
                requirement = Requirement(line)
            except InvalidRequirement:
                continue
            marker = requirement.marker
            if marker is None or not marker.evaluate({"extra": wanted}) \
                    or marker.evaluate({"extra": ""}):
                continue  # not this extra's (or everyone's, already installed)
            if canonicalize_name(requirement.name) == DISTRIBUTION:
                pending += sorted(requirement.extras)
                continue
            requirement.marker = None
            if str(requirement) not in found:
                found.append(str(requirement))
    return found


def derive_extra_hint(extra: str, *, requires: list[str] | None = None,
                      python: str | None = None, has_pip: bool | None = None,
                      uv: str | None = None) -> str:
    """`install the agent extra's packages: `CMD``: the shell line installing what
    eve-build's `extra` adds into the running environment (see the module docstring)."""
    packages = find_extra_requirements(extra, requires)
    if not packages:  # no metadata (run from a bare source tree): the documented way
        return (f"install eve-build with its `{extra}` extra, e.g. "
                f"`python -m pip install '/path/to/eve-build[{extra}]'` (docs/installing.md)")
    command = derive_install_hint(*packages, python=python, has_pip=has_pip, uv=uv)
    return (f"install the `{extra}` extra's packages: `{command}` "
            f"(`eve-build[{extra}]` once eve-build is on PyPI; docs/installing.md)")


def _shown(python: Path) -> str:
    try:
        relative = python.absolute().relative_to(Path.cwd())
    except ValueError:
        return shlex.quote(str(python))
    return shlex.quote(str(relative) if os.sep in str(relative) else f".{os.sep}{relative}")
