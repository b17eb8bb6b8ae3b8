"""Slow, real runs: a scaffold whose own tests pass, and the wheel re-pack of eve-build.

They create virtual environments and install packages (from the configured package
index), so they take a minute or two.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from eve_build.scaffold import init_extension
from eve_build.toolchain import try_locate_checkout

pytestmark = pytest.mark.integration

CHECKOUT = try_locate_checkout()


def run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    # The outer test run's settings must not leak into the scaffold's own pytest.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "PYTHONPATH"))}
    return subprocess.run(
        argv,
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        check=False,
    )


def _files(root: Path) -> dict[str, bytes]:
    skipped = {".venv", ".git", "__pycache__", ".pytest_cache", ".eve-cache"}  # + build cache
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not skipped & set(p.relative_to(root).parts)
        and ".egg-info" not in p.as_posix()
    }


def test_a_new_scaffold_passes_its_own_tests(tmp_path: Path) -> None:
    target = tmp_path / "demo"
    result = init_extension("demo", target)

    assert (target / "build" / "eve" / "demo" / "tools" / "__init__.py").is_file()
    tests = run([str(target / ".venv" / "bin" / "python"), "-m", "pytest", "-q"], target)
    assert tests.returncode == 0, tests.stdout
    assert "2 passed" in tests.stdout

    log = run(["git", "log", "--format=%s"], target)
    assert log.stdout.splitlines() == [f"Scaffold demo with eve-build {eve_version()}"]
    status = run(["git", "status", "--porcelain"], target)
    assert status.stdout == "", "build output and .venv are ignored, the rest committed"
    assert result.next_steps[1:] == [".venv/bin/python -m pytest", ".venv/bin/eve extension build"]

    bare = tmp_path / "bare" / "demo"
    init_extension("demo", bare, install=False, git=False)
    assert not (bare / ".venv").exists()
    assert not (bare / ".git").exists()
    with_git, without_git = _files(target), _files(bare)
    # the one difference: authors come from `git config`, read only when git is used
    project = tomllib.loads(with_git.pop("pyproject.toml").decode())
    project["project"].pop("authors", None)
    assert tomllib.loads(without_git.pop("pyproject.toml").decode()) == project
    # and so the freshness record, which holds pyproject.toml's hash, differs in that hash
    records = [json.loads(files.pop("build/eve/.eve-freshness.json"))
               for files in (with_git, without_git)]
    for record in records:
        assert record["inputs"].pop("pyproject.toml", None) is not None, record
    assert records[0] == records[1]
    assert without_git == with_git, "--no-install --no-git gives the same files"

    # `python -m build` in `.venv` is the frontend, not the `build/` output folder there
    # (without the frontend: `No module named build.__main__`)
    wheel = run([str(target / ".venv" / "bin" / "python"), "-m", "build", "--wheel",
                 "--no-isolation"], target)
    assert wheel.returncode == 0, wheel.stdout
    assert [p.name for p in (target / "dist").glob("*.whl")] == ["demo-0.1.0-py3-none-any.whl"]


def eve_version() -> str:
    from eve_build._version import __version__

    return __version__


def test_an_installed_eve_build_repacks_to_its_own_wheel(tmp_path: Path) -> None:
    assert CHECKOUT is not None
    built = run(
        [
            sys.executable,
            "-m",
            "build",
            "--wheel",
            "--no-isolation",
            "--outdir",
            str(tmp_path / "dist"),
            str(CHECKOUT),
        ],
        tmp_path,
    )
    assert built.returncode == 0, built.stdout
    (original,) = (tmp_path / "dist").glob("*.whl")
    venv = tmp_path / "venv"
    assert run([sys.executable, "-m", "venv", str(venv)], tmp_path).returncode == 0
    python = str(venv / "bin" / "python")
    installed = run([python, "-m", "pip", "install", "-q", str(original)], tmp_path)
    assert installed.returncode == 0, installed.stdout

    (tmp_path / "out").mkdir()
    script = (
        "import sys; from pathlib import Path; "
        "from eve_build.toolchain import try_locate_checkout, write_installed_wheel; "
        "assert try_locate_checkout() is None; "
        "print(write_installed_wheel(Path(sys.argv[1])))"
    )
    repacked = run([python, "-c", script, str(tmp_path / "out")], tmp_path)
    assert repacked.returncode == 0, repacked.stdout
    with zipfile.ZipFile(original) as a, zipfile.ZipFile(repacked.stdout.strip()) as b:
        assert sorted(a.namelist()) == sorted(b.namelist())
        for name in a.namelist():
            if ".dist-info/" not in name:
                assert a.read(name) == b.read(name), name
