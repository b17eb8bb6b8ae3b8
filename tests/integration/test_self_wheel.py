"""eve-build's own wheel, built by `python -m build` like a release."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from tests.integration.conftest import Venv

pytestmark = pytest.mark.integration


def test_the_wheel_ships_the_templates_and_the_hook(eve_build_wheel_dir: Path) -> None:
    (wheel,) = eve_build_wheel_dir.glob("eve_build-*-py3-none-any.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        dist_info = next(n.split("/")[0] for n in names if n.endswith(".dist-info/METADATA"))
        entry_points = archive.read(f"{dist_info}/entry_points.txt").decode()
        metadata = archive.read(f"{dist_info}/METADATA").decode().splitlines()

    assert {
        "eve_build/_templates/extension/README.md.jinja",
        "eve_build/_templates/extension/LICENSE.jinja",
        "eve_build/_templates/extension/dot-github/workflows/ci.yml.jinja",
        "eve_build/_templates/agent/agent/agent.py.jinja",
        "eve_build/_templates/agent/dot-gitignore.jinja",
        "eve_build/schemas/_envelope.json",
        "eve_build/schemas/build.json",
        "eve_build/hatch/hooks.py",
        "eve_build/hatch/plugin.py",
        "eve_build/py.typed",
    } <= names
    assert "[hatch]\neve = eve_build.hatch.hooks\n" in entry_points
    assert any(line.startswith("Requires-Dist: hatchling") for line in metadata)
    assert any(line.startswith("Requires-Dist: editables") for line in metadata)


def test_hatchling_finds_the_hook_of_the_installed_wheel(base_venv: Venv, tmp_path: Path) -> None:
    found = base_venv.python_c(
        "from hatchling.plugin.manager import PluginManager; "
        "hook = PluginManager().build_hook.get('eve'); print(hook.__module__, hook.PLUGIN_NAME)",
        cwd=tmp_path,
    )

    assert found.stdout.strip() == "eve_build.hatch.plugin eve", found.stdout
