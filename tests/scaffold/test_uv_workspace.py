"""`eve extension init` with real uv (the `uv` of the test extra, put on PATH here only).

In a uv workspace the next steps init prints are run exactly as printed, from the
workspace root, and the scaffold's own tests pass there. Outside one, the `.venv`
that uv made has a pip, so the README's `.venv/bin/python -m pip install` lines work.
eve-build is not on PyPI: uv gets it from a folder holding the checkout's wheel
(`UV_FIND_LINKS`, as the scaffold README says); everything else from the index.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from eve_build.scaffold.agent import ADD_PLACEHOLDER
from eve_build.toolchain import try_locate_checkout
from tests.conftest import FIXTURES, copy_fixture_tree

pytestmark = pytest.mark.integration

UV = Path(sys.executable).parent / "uv"
WORKSPACE = """\
[project]
name = "weather-agents"
version = "0.1.0"
requires-python = ">=3.11"

[tool.uv.workspace]
members = ["packages/*"]
"""


@pytest.fixture(scope="module")
def eve_wheels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from eve_build.hatch.checkout import build_checkout_wheel

    checkout = try_locate_checkout()
    assert checkout is not None, "these tests run from a checkout of eve-build"
    folder = tmp_path_factory.mktemp("eve-wheels")
    build_checkout_wheel(checkout, folder)
    return folder


def _environment(tmp_path: Path, wheels: Path) -> dict[str, str]:
    """Only uv on PATH (no pytest, no eve); uv uses this interpreter, never downloads one."""
    tools = tmp_path / "tools"
    tools.mkdir(exist_ok=True)
    (tools / "uv").symlink_to(UV)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTEST_", "PYTHONPATH", "VIRTUAL_ENV", "UV_PROJECT"))}
    return {**env, "PATH": str(tools), "UV_FIND_LINKS": str(wheels),
            "UV_PYTHON": sys.executable, "UV_PYTHON_DOWNLOADS": "never", "NO_COLOR": "1"}


def _shell(line: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(line, shell=True, cwd=cwd, env=env, text=True, timeout=600,
                          input="",  # `eve chat` ends at the end of its input
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False)


def test_the_printed_next_steps_pass_as_printed_in_a_uv_workspace(
        tmp_path: Path, eve_wheels: Path) -> None:
    root = tmp_path / "weather-agents"
    root.mkdir()
    (root / "pyproject.toml").write_text(WORKSPACE)
    env = _environment(tmp_path, eve_wheels)

    init = subprocess.run([sys.executable, "-m", "eve_build", "extension", "init", "wx-alerts",
                           "--dir", "packages/wx-alerts"], cwd=root, env=env, text=True,
                          capture_output=True, timeout=300, check=False)
    assert init.returncode == 0, init.stdout + init.stderr
    steps = [line.strip() for line in init.stdout.split("Next steps:\n", 1)[1].splitlines()
             if line.strip()]
    assert steps == ["uv sync --all-packages", "uv run --package wx-alerts --extra test pytest",
                     "uv run --package wx-alerts eve extension build --path "
                     "packages/wx-alerts"]

    outputs = []
    for line in steps:
        done = _shell(line, root, env)
        assert done.returncode == 0, f"`{line}` failed:\n{done.stdout}"
        outputs.append(done.stdout)
    assert "2 passed" in outputs[1]  # the fixture built the member, not the workspace root
    assert "Built wx-alerts 0.1.0 into packages/wx-alerts/build/eve/wx_alerts" in outputs[2]


def test_the_venv_uv_makes_has_pip_for_the_readme_lines(tmp_path: Path, eve_wheels: Path) -> None:
    env = _environment(tmp_path, eve_wheels)

    init = subprocess.run([sys.executable, "-m", "eve_build", "extension", "init", "demo",
                           "--no-git"], cwd=tmp_path, env=env, text=True, capture_output=True,
                          timeout=600, check=False)
    assert init.returncode == 0, init.stdout + init.stderr
    assert "  - created .venv (uv)" in init.stdout

    target = tmp_path / "demo"
    readme = (target / "README.md").read_text()
    assert '$ .venv/bin/python -m pip install --no-build-isolation -e ".[test]"' in readme
    again = _shell('.venv/bin/python -m pip install -q --no-build-isolation --no-deps -e ".[test]"',
                   target, env)
    assert again.returncode == 0, again.stdout
    tests = _shell(".venv/bin/python -m pytest -q", target, env)
    assert tests.returncode == 0 and "2 passed" in tests.stdout, tests.stdout


def test_eve_init_in_a_uv_workspace_runs_its_printed_steps_then_adds_and_runs(
        tmp_path: Path, eve_wheels: Path) -> None:
    root = tmp_path / "agents"
    root.mkdir()
    (root / "pyproject.toml").write_text(WORKSPACE)
    gizmo = copy_fixture_tree(FIXTURES / "extensions" / "gizmo", tmp_path / "gizmo")
    env = _environment(tmp_path, eve_wheels)

    init = subprocess.run([sys.executable, "-m", "eve_build", "init", "helpdesk",
                           "--dir", "packages/helpdesk"], cwd=root, env=env, text=True,
                          capture_output=True, timeout=300, check=False)
    assert init.returncode == 0, init.stdout + init.stderr
    steps = [line.strip() for line in init.stdout.split("Next steps", 1)[1].splitlines()[1:]
             if line.strip()]
    assert steps == [
        "uv sync --all-packages",
        "uv run --package helpdesk --extra test pytest packages/helpdesk",
        f"uv run --package helpdesk eve add {ADD_PLACEHOLDER} --path packages/helpdesk",
        "uv run --package helpdesk eve chat --model test --path packages/helpdesk"]
    assert "[tool.uv.sources]" not in (root / "pyproject.toml").read_text()

    outputs = []
    for line in steps:
        done = _shell(line.replace(ADD_PLACEHOLDER, str(gizmo)), root, env)
        assert done.returncode == 0, f"`{line}` failed:\n{done.stdout}"
        outputs.append(done.stdout)
    assert "1 passed" in outputs[1]
    assert "Added gizmo 1.0.0 as `gizmo`" in outputs[2]
    run = _shell("uv run --package helpdesk eve run --model test hi --path packages/helpdesk",
                 root, env)
    assert run.returncode == 0, run.stdout
    assert "tool: gizmo__spin ok" in run.stdout and "tool: greet ok" in run.stdout
