"""Isolated `python -m build`: eve-build comes from `PIP_FIND_LINKS`, the rest from the index.

These are the slow tests (each isolated build installs hatchling, eve-build and the
project's dependencies into a fresh environment), so there are only three builds.
"""

from __future__ import annotations

import shutil
import sys
import zipfile
from collections.abc import Mapping
from pathlib import Path

import pytest

from tests.integration.conftest import Dists, build_env, python_build, run

pytestmark = pytest.mark.integration

PROBE_DEPENDENCY = {
    "pyproject.toml": """[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"

[project]
name = "eve-probe-dep"
version = "1.0.0"
""",
    "eve_probe_dep/__init__.py": 'ANSWER = "from a runtime dependency"\n',
}


def probe_extension(*, require_runtime_dependencies: bool) -> dict[str, str]:
    """An extension whose tool imports a package that only its dependencies provide."""
    option = "true" if require_runtime_dependencies else "false"
    return {
        "pyproject.toml": f"""[build-system]
requires = ["hatchling", "eve-build==0.1.0"]
build-backend = "hatchling.build"

[project]
name = "probe-ext"
version = "0.1.0"
dependencies = ["eve-build", "pydantic>=2", "eve-probe-dep"]

[tool.eve.extension]
external-dependencies = ["eve-probe-dep"]

[tool.hatch.build.hooks.eve]
require-runtime-dependencies = {option}
""",
        "extension/extension.py": (
            "from eve_build.sdk import define_extension\n\nextension = define_extension()\n"
        ),
        "extension/tools/answer.py": """from eve_probe_dep import ANSWER
from pydantic import BaseModel

from eve_build.sdk import define_tool


class AnswerInput(BaseModel):
    pass


tool = define_tool(description="Answer.", input=AnswerInput, execute=lambda i, ctx: ANSWER)
""",
    }


def write_files(root: Path, files: Mapping[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def wheel_members(wheel: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(wheel) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def test_isolated_build_of_the_fixture_matches_the_no_isolation_one(
    acme_dists: Dists, find_links_env: dict[str, str], tmp_path: Path
) -> None:
    project = tmp_path / "acme-crm"
    shutil.copytree(acme_dists.project, project)

    completed = python_build(project, tmp_path / "dist", env=find_links_env)

    assert completed.returncode == 0, completed.stdout
    assert "eve-build==0.1.0" in completed.stdout
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    isolated, reference = wheel_members(wheel), wheel_members(acme_dists.wheel)
    assert list(isolated) == list(reference)
    # The WHEEL file names the hatchling that the index gave the isolated env.
    differing = [n for n in reference if isolated[n] != reference[n]]
    assert set(differing) <= {"acme_crm-0.3.0.dist-info/WHEEL", "acme_crm-0.3.0.dist-info/RECORD"}


@pytest.fixture(scope="module")
def probe_links(tmp_path_factory: pytest.TempPathFactory, find_links_env: dict[str, str]) -> dict[
    str, str
]:
    """find_links_env plus a folder holding the wheel of `eve-probe-dep`."""
    root = write_files(tmp_path_factory.mktemp("probe-dep") / "eve-probe-dep", PROBE_DEPENDENCY)
    links = root.parent / "links"
    completed = run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(links),
         str(root)], root, build_env(),
    )
    assert completed.returncode == 0, completed.stdout
    return {**find_links_env, "PIP_FIND_LINKS": f"{links} {find_links_env['PIP_FIND_LINKS']}"}


def test_require_runtime_dependencies_lets_the_build_import_them(
    probe_links: dict[str, str], tmp_path: Path
) -> None:
    project = write_files(
        tmp_path / "probe-ext", probe_extension(require_runtime_dependencies=True)
    )

    completed = python_build(project, tmp_path / "dist", "--wheel", env=probe_links)

    assert completed.returncode == 0, completed.stdout
    assert "eve-probe-dep" in completed.stdout  # installed into the build env
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    assert "probe_ext/tools/__init__.py" in wheel_members(wheel)


def test_without_runtime_dependencies_the_failed_import_says_what_to_set(
    probe_links: dict[str, str], tmp_path: Path
) -> None:
    project = write_files(
        tmp_path / "probe-ext", probe_extension(require_runtime_dependencies=False)
    )

    completed = python_build(project, tmp_path / "dist", "--wheel", env=probe_links)

    assert completed.returncode != 0
    assert "extension/tools/answer.py:1: error load/import-failed" in completed.stdout
    assert "note: `require-runtime-dependencies` is not set in `[tool.hatch.build.hooks.eve]`" \
        in completed.stdout
