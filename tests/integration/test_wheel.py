"""`python -m build` on the fixture extension: what the sdist and the wheel hold.

The builds use the real `build` frontend with `--no-isolation` (this venv has
eve-build and hatchling); tests/integration/test_isolated.py does it isolated.
"""

from __future__ import annotations

import json
import shutil
import sys
import tarfile
import zipfile
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.conftest import GOLDEN
from tests.integration.conftest import SOURCE_DATE_EPOCH, Dists, Venv, python_build, run

pytestmark = pytest.mark.integration

WHEEL_GOLDEN = GOLDEN / "wheel" / "acme-crm.txt"
DIST_INFO = "acme_crm-0.3.0.dist-info"


def wheel_names(wheel: Path) -> list[str]:
    with zipfile.ZipFile(wheel) as archive:
        return archive.namelist()


def read_member(wheel: Path, name: str) -> bytes:
    with zipfile.ZipFile(wheel) as archive:
        return archive.read(name)


def test_wheel_ships_the_generated_package(acme_dists: Dists) -> None:
    names = wheel_names(acme_dists.wheel)

    for expected in [
        "acme_crm/__init__.py",
        "acme_crm/__init__.pyi",
        "acme_crm/py.typed",
        "acme_crm/tools/__init__.py",
        "acme_crm/extension/_manifest.json",
        "acme_crm/extension/skills/triage/SKILL.md",
        "acme_crm/extension/skills/triage/checklist.md",
        "acme_crm/extension/skills/triage/templates/reply.txt",
        f"{DIST_INFO}/extra_metadata/eve-manifest.json",
    ]:
        assert expected in names
    assert not [n for n in names if n.startswith(("build/", "extension/", "tests/"))]


def test_wheel_file_list_is_exactly_the_golden_list(acme_dists: Dists, update_golden: bool) -> None:
    listing = "".join(f"{name}\n" for name in wheel_names(acme_dists.wheel))
    if update_golden:
        WHEEL_GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        WHEEL_GOLDEN.write_text(listing, encoding="utf-8")
    assert WHEEL_GOLDEN.is_file(), "no golden wheel list: run with --update-golden"
    assert listing == WHEEL_GOLDEN.read_text(encoding="utf-8")


def test_dist_info_carries_the_manifest_and_the_external_dependencies(acme_dists: Dists) -> None:
    shipped = read_member(acme_dists.wheel, "acme_crm/extension/_manifest.json")
    copy = read_member(acme_dists.wheel, f"{DIST_INFO}/extra_metadata/eve-manifest.json")
    metadata = read_member(acme_dists.wheel, f"{DIST_INFO}/METADATA").decode()

    assert copy == shipped
    manifest = json.loads(copy)
    assert manifest["build"] == {"externalDependencies": ["packaging"]}
    assert manifest["package"] == {"name": "acme-crm", "version": "0.3.0", "import": "acme_crm"}
    # an external dependency is always a declared dependency of the wheel too
    assert "Requires-Dist: packaging>=23" in metadata.splitlines()


def test_sdist_carries_the_sources_and_not_the_output(acme_dists: Dists) -> None:
    with tarfile.open(acme_dists.sdist) as archive:
        names = [name.split("/", 1)[1] for name in archive.getnames()]

    assert {"pyproject.toml", "README.md", "PKG-INFO", "extension/extension.py",
            "extension/skills/triage/templates/reply.txt"} <= set(names)
    assert not [n for n in names if n.startswith(("build/", "dist/"))]


def test_sdist_leaves_out_a_stale_output_folder(copy_fixture: Callable[[str], Path],
                                                tmp_path: Path) -> None:
    project = copy_fixture("extensions/acme-crm")
    (project / "build" / "eve" / "acme_crm").mkdir(parents=True, exist_ok=True)
    (project / "build" / "eve" / "acme_crm" / "__init__.py").write_text("stale\n")

    completed = python_build(project, tmp_path / "out", "--sdist", "--no-isolation")

    assert completed.returncode == 0, completed.stdout
    (sdist,) = (tmp_path / "out").glob("*.tar.gz")
    with tarfile.open(sdist) as archive:
        assert not [n for n in archive.getnames() if "/build/" in n]
    assert "the sdist includes the generated" not in completed.stdout


def test_wheel_built_directly_equals_the_wheel_built_from_the_sdist(
    acme_dists: Dists, tmp_path: Path
) -> None:
    project = tmp_path / "acme-crm"
    shutil.copytree(acme_dists.project, project)

    completed = python_build(project, tmp_path / "direct", "--wheel", "--no-isolation")

    assert completed.returncode == 0, completed.stdout
    (direct,) = (tmp_path / "direct").glob("*.whl")
    assert direct.read_bytes() == acme_dists.wheel.read_bytes()


def test_wheels_are_byte_identical_under_a_fixed_source_date_epoch(
    acme_dists: Dists, tmp_path: Path
) -> None:
    project = tmp_path / "acme-crm"
    shutil.copytree(acme_dists.project, project)
    wheels = []
    for attempt in ("first", "second"):
        completed = python_build(project, tmp_path / attempt, "--wheel", "--no-isolation")
        assert completed.returncode == 0, completed.stdout
        (wheel,) = (tmp_path / attempt).glob("*.whl")
        wheels.append(wheel.read_bytes())

    assert wheels[0] == wheels[1]
    expected = datetime.fromtimestamp(int(SOURCE_DATE_EPOCH), UTC).timetuple()[:6]
    with zipfile.ZipFile(acme_dists.wheel) as archive:
        assert {info.date_time for info in archive.infolist()} == {expected}


def test_twine_check_passes(acme_dists: Dists) -> None:
    completed = run(
        [sys.executable, "-m", "twine", "check", "--strict", str(acme_dists.wheel),
         str(acme_dists.sdist)], acme_dists.project,
    )

    assert completed.returncode == 0, completed.stdout
    assert completed.stdout.count("PASSED") == 2


def test_installed_wheel_gives_the_mount_factory(
    acme_dists: Dists, make_venv: Callable[[str], Venv], tmp_path: Path
) -> None:
    venv = make_venv("consumer")
    installed = venv.pip("install", "-q", str(acme_dists.wheel), cwd=tmp_path)
    assert installed.returncode == 0, installed.stdout

    mounted = venv.python_c(
        "from acme_crm import acme_crm; print(acme_crm(api_key='x'))", cwd=tmp_path
    )
    manifest = venv.python_c(
        "import json, importlib.metadata as m; "
        "print(json.loads(m.distribution('acme-crm').read_text("
        "'extra_metadata/eve-manifest.json'))['requires']['tool'])",
        cwd=tmp_path,
    )

    assert mounted.returncode == 0, mounted.stdout
    assert mounted.stdout.strip() == (
        "Mount(package='acme-crm', import_name='acme_crm', version='0.3.0', "
        "config={'api_key': 'x'})"
    )
    assert str(venv.site_packages) in venv.python_c(
        "import acme_crm; print(acme_crm.__file__)", cwd=tmp_path).stdout
    assert manifest.stdout.strip() == "1", manifest.stdout


def test_a_broken_extension_fails_the_wheel_build_with_its_diagnostics(
    copy_fixture: Callable[[str], Path], tmp_path: Path
) -> None:
    project = copy_fixture("extensions/bad/tool-description-missing")

    completed = python_build(project, tmp_path / "out", "--wheel", "--no-isolation")

    assert completed.returncode != 0
    lines = completed.stdout.splitlines()
    assert "extension/tools/search.py:18: error tool/description-missing: the tool has no " \
        "description" in lines
    assert "error: cannot build extension `bad-tool-description-missing`: 1 error" in lines
    assert not list((tmp_path / "out").glob("*.whl"))
