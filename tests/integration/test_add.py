"""`eve add` into a real agent project with its own `.venv`: from a wheel and from a path.

eve runs from this test's interpreter; the project's environment is its `.venv`
(layered over the base venv that has eve-build), so the install goes there with
`pip --python` and the build runs there too.
"""

from __future__ import annotations

import difflib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import FIXTURES
from tests.integration.conftest import Dists, Venv, build_env, create_venv

pytestmark = pytest.mark.integration
TIMEOUT = 600

PYPROJECT = """\
# The support agent (this comment, the spacing and the quotes must survive `eve add`)
[project]
name    = "support-agent"
version = '0.1.0'
dependencies = [
    "eve-build",   # the toolchain
]

[tool.other]
keep = { a = 1,   b = 2 }
"""


def _eve(root: Path, home: Path, *args: str, env: dict[str, str] | None = None
         ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "eve_build", *args], cwd=root,
                          env=build_env(EVE_HOME=str(home), **(env or {})), text=True,
                          stdin=subprocess.DEVNULL, capture_output=True, check=False,
                          timeout=TIMEOUT)


@pytest.fixture
def project(tmp_path: Path, base_venv: Venv) -> Path:
    root = tmp_path / "support-agent"
    (root / "agent").mkdir(parents=True)
    (root / "pyproject.toml").write_text(PYPROJECT)
    (root / "agent" / "instructions.md").write_text("You support customers.\n")
    create_venv(root / ".venv", base_venv)
    return root


def _added_lines(after: str) -> list[str]:
    return [line for line in difflib.ndiff(PYPROJECT.splitlines(), after.splitlines())
            if line.startswith(("+ ", "- "))]


def test_add_a_wheel_mounts_it_with_its_secret_as_env(project: Path, acme_dists: Dists,
                                                      tmp_path: Path) -> None:
    home = tmp_path / "home"
    done = _eve(project, home, "add", str(acme_dists.wheel), "--as", "crm")

    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[0] == \
        "Added acme-crm 0.3.0 as `crm` (crm.py); the agent is built"
    assert done.stdout.splitlines()[-1] == "Set before running the agent: CRM_API_KEY"
    after = (project / "pyproject.toml").read_text()
    assert _added_lines(after) == [f'+     "acme-crm @ {acme_dists.wheel.resolve().as_uri()}",']
    mount = (project / "agent" / "extensions" / "crm.py").read_text()
    assert 'mount = acme_crm(\n    api_key=env("CRM_API_KEY"),\n    # region="eu",\n' \
           "    # max_results=10,\n)\n" in mount
    assert (project / ".eve" / "compile" / "compiled-agent.json").is_file()
    assert list((project / ".venv").glob("lib/python*/site-packages/acme_crm"))

    called = subprocess.run(
        [str(project / ".venv" / "bin" / "python"), "-m", "eve_build", "call", "crm__search",
         '{"query": "ada"}'], cwd=project, text=True, capture_output=True, check=False,
        env=build_env(EVE_HOME=str(home), CRM_API_KEY="k"), timeout=TIMEOUT)
    assert called.returncode == 0, called.stdout + called.stderr
    assert json.loads(called.stdout)["query"] == "ada"


def test_add_a_path_installs_it_editable_and_refuses_a_second_time(
        project: Path, tmp_path: Path) -> None:
    source = tmp_path / "gizmo"
    shutil.copytree(FIXTURES / "extensions" / "gizmo", source,
                    ignore=shutil.ignore_patterns("build", "dist", "__pycache__"))
    home = tmp_path / "home"

    done = _eve(project, home, "add", str(source))

    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines() == [
        "Added gizmo 1.0.0 as `gizmo` (gizmo.py); the agent is built", "  tools: gizmo__spin"]
    assert _added_lines((project / "pyproject.toml").read_text()) == [
        f'+     "gizmo @ {source.resolve().as_uri()}",']
    assert (project / "agent" / "extensions" / "gizmo.py").read_text().endswith(
        "from gizmo import gizmo\n\nmount = gizmo()\n")
    direct_url = next((project / ".venv").glob("lib/python*/site-packages/gizmo-*.dist-info"))
    assert json.loads((direct_url / "direct_url.json").read_text())["dir_info"] == \
        {"editable": True}
    compiled = json.loads((project / ".eve/compile/compiled-agent.json").read_text())
    assert compiled["root"]["mounts"][0]["sourceBacked"] is True

    before = (project / "pyproject.toml").read_bytes()
    again = _eve(project, home, "add", str(source))
    assert again.returncode == 1
    assert "error add/namespace-taken: the namespace `gizmo` is taken" in again.stderr
    assert (project / "pyproject.toml").read_bytes() == before
    assert "Traceback" not in again.stdout + again.stderr
