"""User code imported at build time runs in workers under a time budget (DESIGN 11).

Each misbehaving module (fixtures/engine/hostile-imports/) must end the build with a
diagnostic naming it, exit code 1, no traceback, and the previous output untouched.
Every build runs as a real `eve` subprocess with a small EVE_IMPORT_TIMEOUT and a
subprocess timeout, so a regression fails instead of hanging the suite.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import FIXTURES
from tests.golden_files import read_files

HOSTILE = FIXTURES / "engine" / "hostile-imports"
SUBPROCESS_TIMEOUT = 90


GENEROUS = "120"
"""The import budget of a build that must succeed, or whose failure is not a timeout: no
busy machine imports a module that slowly. Only the hanging modules get SHORT."""
SHORT = "1"


def run_eve(args: list[str], cwd: Path, home: Path, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "EVE_HOME": str(home), "EVE_IMPORT_TIMEOUT": GENEROUS, **env}
    return subprocess.run([sys.executable, "-m", "eve_build", *args], cwd=cwd, env=environment,
                          capture_output=True, text=True, timeout=SUBPROCESS_TIMEOUT,
                          check=False)


def add_hostile(folder: Path, behaviour: str) -> str:
    (folder / "tools").mkdir(exist_ok=True)
    shutil.copy(HOSTILE / f"{behaviour}.py", folder / "tools" / f"{behaviour}.py")
    return f"tools/{behaviour}.py"


@pytest.mark.parametrize(("behaviour", "code", "fragment"), [
    ("sleeps_forever", "engine/import-timeout", "did not finish within 1 s"),
    ("loops_forever", "engine/import-timeout", "did not finish within 1 s"),
    ("starts_thread", "engine/stray-thread", "started the thread `poller`"),
    ("exits_process", "engine/worker-crashed", "ended with exit code 3"),
    ("segfaults", "engine/worker-crashed", "killed by SIGSEGV"),
    ("raises_system_exit", "load/import-failed", "raised SystemExit: 4"),
    ("raises_keyboard_interrupt", "load/import-failed", "raised KeyboardInterrupt"),
])
def test_extension_build_names_the_module_that_misbehaves_at_import(
    copy_fixture: Callable[[str], Path], tmp_path: Path, behaviour: str, code: str,
    fragment: str,
) -> None:
    root = copy_fixture("extensions/gizmo")
    assert run_eve(["extension", "build"], root, tmp_path / "home").returncode == 0
    before = read_files(root / "build" / "eve")
    module = add_hostile(root / "extension", behaviour)
    budget = SHORT if code == "engine/import-timeout" else GENEROUS

    result = run_eve(["extension", "build"], root, tmp_path / "home",
                     EVE_IMPORT_TIMEOUT=budget)

    assert result.returncode == 1, result.stderr
    assert f"extension/{module}" in result.stderr
    assert f"error {code}:" in result.stderr
    assert fragment in result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    assert read_files(root / "build" / "eve") == before


def test_the_budget_comes_from_pyproject_when_the_environment_is_silent(
    copy_fixture: Callable[[str], Path], tmp_path: Path
) -> None:
    root = copy_fixture("extensions/gizmo")
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace(
        "[tool.eve.extension]\n", "[tool.eve.extension]\nimport-timeout = 0.5\n"))
    add_hostile(root / "extension", "sleeps_forever")

    result = run_eve(["extension", "build"], root, tmp_path / "home", EVE_IMPORT_TIMEOUT="")

    assert result.returncode == 1
    assert "did not finish within 0.5 s" in result.stderr


@pytest.mark.parametrize(("setting", "where"), [
    ({"EVE_IMPORT_TIMEOUT": "soon"}, "EVE_IMPORT_TIMEOUT"),
    ({"EVE_IMPORT_TIMEOUT": "-3"}, "EVE_IMPORT_TIMEOUT"),
    ({"pyproject": "import-timeout = \"30\""}, "tool.eve.extension.import-timeout"),
])
def test_an_invalid_budget_is_a_diagnostic(
    copy_fixture: Callable[[str], Path], tmp_path: Path, setting: dict[str, str], where: str
) -> None:
    root = copy_fixture("extensions/gizmo")
    line = setting.pop("pyproject", None)
    if line is not None:
        pyproject = root / "pyproject.toml"
        pyproject.write_text(pyproject.read_text().replace(
            "[tool.eve.extension]\n", f"[tool.eve.extension]\n{line}\n"))

    result = run_eve(["extension", "build"], root, tmp_path / "home", **setting)

    assert result.returncode == 1
    assert "error engine/budget-invalid:" in result.stderr
    assert where in result.stderr
    assert "Traceback" not in result.stderr


def test_user_code_that_prints_at_import_cannot_corrupt_json_output(
    copy_fixture: Callable[[str], Path], tmp_path: Path
) -> None:
    root = copy_fixture("extensions/gizmo")
    add_hostile(root / "extension", "prints_at_import")

    result = run_eve(["extension", "build", "--json"], root, tmp_path / "home")

    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["status"] == "built"
    assert "hello from import" in result.stderr


@pytest.mark.parametrize(("behaviour", "code"), [
    ("sleeps_forever", "engine/import-timeout"),
    ("exits_process", "engine/worker-crashed"),
    ("starts_thread", "engine/stray-thread"),
])
@pytest.mark.parametrize("command", [["build"], ["info", "--json"]])
def test_agent_build_and_info_name_the_agent_module_that_misbehaves(
    tmp_path: Path, behaviour: str, code: str, command: list[str]
) -> None:
    root = tmp_path / "flat"
    shutil.copytree(FIXTURES / "apps" / "flat", root)
    shutil.copytree(FIXTURES / "extensions" / "gizmo", root / "packages" / "gizmo")
    assert run_eve(["build"], root, tmp_path / "home").returncode == 0
    before = read_files(root / ".eve")
    module = add_hostile(root, behaviour)
    budget = SHORT if code == "engine/import-timeout" else GENEROUS

    result = run_eve(command, root, tmp_path / "home", EVE_IMPORT_TIMEOUT=budget)

    assert result.returncode == 1, result.stdout + result.stderr
    output = result.stdout + result.stderr
    assert module in output
    assert code in output
    assert "Traceback" not in output
    if command == ["build"]:
        after = read_files(root / ".eve")
        assert after["compile/compiled-agent.json"] == before["compile/compiled-agent.json"]
    else:
        assert json.loads(result.stdout)["status"] == "failed"
