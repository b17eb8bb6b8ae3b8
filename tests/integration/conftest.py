"""Session fixtures for the wheel tests: eve-build's own wheel, venvs, built dists.

Everything expensive is made once per session: eve-build's wheel (built with the
real `build` frontend, isolated, as a user would), a base venv with that wheel
installed, and the fixture extension's sdist and wheel. Each test that installs
something gets a fresh, cheap venv that sees the base venv's packages through a
`.pth` file, so `pip install` there resolves eve-build and its dependencies
without downloading or copying them again.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, REPO

SOURCE_DATE_EPOCH = "1700000000"  # 2023-11-14 22:13:20 UTC
ACME = "extensions/acme-crm"


RUN_TIMEOUT = 900.0
"""Seconds one command of an integration test may take (an install on a slow network
included) before the test fails instead of hanging CI."""


def run(
    argv: Sequence[str], cwd: Path, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run a command; stdout and stderr combined in `.stdout`; raises only
    subprocess.TimeoutExpired, after RUN_TIMEOUT seconds."""
    return subprocess.run(
        list(argv), cwd=cwd, env=dict(env) if env is not None else None, text=True,
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False,
        timeout=RUN_TIMEOUT,
    )


def build_env(**extra: str) -> dict[str, str]:
    """This process's environment with a fixed SOURCE_DATE_EPOCH (and `extra`)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["SOURCE_DATE_EPOCH"] = SOURCE_DATE_EPOCH
    env.update(extra)
    return env


def python_build(project: Path, outdir: Path, *args: str, env: Mapping[str, str] | None = None,
                 ) -> subprocess.CompletedProcess[str]:
    """`python -m build ARGS --outdir OUTDIR PROJECT` with the test interpreter."""
    argv = [sys.executable, "-m", "build", *args, "--outdir", str(outdir), str(project)]
    return run(argv, project, env if env is not None else build_env())


@dataclass(frozen=True)
class Venv:
    root: Path

    @property
    def python(self) -> Path:
        return self.root / "bin" / "python"

    @property
    def site_packages(self) -> Path:
        version = f"python{sys.version_info.major}.{sys.version_info.minor}"
        return self.root / "lib" / version / "site-packages"

    def pip(self, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
        """This test run's pip, acting on this venv (`pip --python`)."""
        argv = [sys.executable, "-m", "pip", "--python", str(self.python), *args]
        return run(argv, cwd, build_env())

    def python_c(self, code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
        return run([str(self.python), "-c", code], cwd, build_env())


def create_venv(root: Path, base: Venv | None = None) -> Venv:
    """A venv without pip; with `base`, it also sees base's packages (after its own)."""
    completed = run([sys.executable, "-m", "venv", "--without-pip", str(root)], root.parent)
    assert completed.returncode == 0, completed.stdout
    venv = Venv(root)
    if base is not None:
        (venv.site_packages / "_eve_test_base.pth").write_text(f"{base.site_packages}\n")
    return venv


@pytest.fixture(scope="session")
def eve_build_wheel_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """eve-build's own wheel, built isolated from the checkout like a release."""
    outdir = tmp_path_factory.mktemp("eve-build-wheel")
    completed = python_build(REPO, outdir, "--wheel")
    assert completed.returncode == 0, completed.stdout
    return outdir


@pytest.fixture(scope="session")
def find_links_env(eve_build_wheel_dir: Path) -> dict[str, str]:
    """An environment in which an isolated build finds `eve-build==X.Y.Z`."""
    links = " ".join(x for x in (str(eve_build_wheel_dir), os.environ.get("PIP_FIND_LINKS")) if x)
    return build_env(PIP_FIND_LINKS=links)


@pytest.fixture(scope="session")
def base_venv(tmp_path_factory: pytest.TempPathFactory, eve_build_wheel_dir: Path) -> Venv:
    """A venv with eve-build installed from its wheel (and its dependencies)."""
    venv = create_venv(tmp_path_factory.mktemp("venvs") / "base")
    (wheel,) = eve_build_wheel_dir.glob("*.whl")
    completed = venv.pip("install", "-q", str(wheel), cwd=venv.root)
    assert completed.returncode == 0, completed.stdout
    return venv


@pytest.fixture
def make_venv(tmp_path: Path, base_venv: Venv) -> Callable[[str], Venv]:
    """A fresh venv layered over the base venv."""
    return lambda name: create_venv(tmp_path / name, base_venv)


@dataclass(frozen=True)
class Dists:
    project: Path
    wheel: Path
    sdist: Path


@pytest.fixture(scope="session")
def acme_session_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A session-wide copy of the fixture extension: only read, never built in place."""
    target = tmp_path_factory.mktemp("acme") / "acme-crm"
    shutil.copytree(FIXTURES / ACME, target, symlinks=True,
                    ignore=shutil.ignore_patterns("build", "dist"))
    return target


@pytest.fixture(scope="session")
def acme_dists(acme_session_project: Path, tmp_path_factory: pytest.TempPathFactory) -> Dists:
    """`python -m build --no-isolation`: the sdist, then the wheel built from it."""
    outdir = tmp_path_factory.mktemp("acme-dist")
    completed = python_build(acme_session_project, outdir, "--no-isolation")
    assert completed.returncode == 0, completed.stdout
    (wheel,) = outdir.glob("*.whl")
    (sdist,) = outdir.glob("*.tar.gz")
    return Dists(acme_session_project, wheel, sdist)

