"""The running eve-build as an install source: its checkout, or a re-packed wheel."""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import json
import zipfile
from importlib.metadata import PathDistribution
from pathlib import Path

import pytest

import eve_build
from eve_build._version import __version__
from eve_build.errors import EveBuildError
from eve_build.toolchain import (
    try_locate_checkout,
    try_locate_installed_wheel,
    write_installed_wheel,
)

DIST_INFO = f"eve_build-{__version__}.dist-info"


def make_site_packages(root: Path, version: str = __version__, *, package: bool = True) -> Path:
    """A site-packages folder holding an installed eve-build, as pip leaves it."""
    files = {
        f"{DIST_INFO}/METADATA": f"Metadata-Version: 2.1\nName: eve-build\nVersion: {version}\n",
        f"{DIST_INFO}/WHEEL": "Wheel-Version: 1.0\nTag: py3-none-any\n",
        f"{DIST_INFO}/INSTALLER": "pip\n",
        f"{DIST_INFO}/REQUESTED": "",
        f"{DIST_INFO}/entry_points.txt": "[console_scripts]\neve = eve_build.cli:main\n",
        f"{DIST_INFO}/direct_url.json": json.dumps({"url": "file:///nowhere/x.whl"}),
    }
    if package:
        files |= {
            "eve_build/__init__.py": "VERSION = 1\n",
            "eve_build/_templates/extension/README.md.jinja": "# {{ name }}\n",
            "eve_build/__pycache__/__init__.cpython-311.pyc": "compiled",
        }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    record = [*files, "../../../bin/eve", f"{DIST_INFO}/RECORD"]
    (root / DIST_INFO / "RECORD").write_text("".join(f"{name},,\n" for name in record))
    return root / DIST_INFO


def test_the_checkout_is_found_from_the_package_folder() -> None:
    assert try_locate_checkout() == Path(eve_build.__file__).parent.parent


def test_a_folder_of_another_project_is_no_checkout(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "something-else"\n')
    (tmp_path / "eve_build").mkdir()
    assert try_locate_checkout(tmp_path / "eve_build") is None
    (tmp_path / "pyproject.toml").write_text("not toml [")
    assert try_locate_checkout(tmp_path / "eve_build") is None


def test_the_installed_files_repack_into_a_valid_wheel(tmp_path: Path) -> None:
    dist = PathDistribution(make_site_packages(tmp_path / "site"))
    (tmp_path / "out").mkdir()
    wheel = write_installed_wheel(tmp_path / "out", dist)

    assert wheel.name == f"eve_build-{__version__}-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        assert names == [
            "eve_build/__init__.py",
            "eve_build/_templates/extension/README.md.jinja",
            f"{DIST_INFO}/METADATA",
            f"{DIST_INFO}/WHEEL",
            f"{DIST_INFO}/entry_points.txt",
            f"{DIST_INFO}/RECORD",
        ]
        assert "Root-Is-Purelib: true" in archive.read(f"{DIST_INFO}/WHEEL").decode()
        rows = list(csv.reader(io.StringIO(archive.read(f"{DIST_INFO}/RECORD").decode())))
        assert [row[0] for row in rows] == names
        for name, digest, size in rows[:-1]:
            data = archive.read(name)
            expected = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            assert digest == f"sha256={expected.decode()}"
            assert int(size) == len(data)
        assert rows[-1][1:] == ["", ""]


def test_a_repacked_wheel_is_byte_for_byte_reproducible(tmp_path: Path) -> None:
    dist = PathDistribution(make_site_packages(tmp_path / "site"))
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = write_installed_wheel(tmp_path / "a", dist).read_bytes()
    assert write_installed_wheel(tmp_path / "b", dist).read_bytes() == first


def test_another_installed_version_is_refused(tmp_path: Path) -> None:
    dist = PathDistribution(make_site_packages(tmp_path, version="0.0.1"))
    with pytest.raises(
        EveBuildError,
        match=rf"the installed `eve-build` is 0\.0\.1, but eve-build {__version__} is running",
    ):
        write_installed_wheel(tmp_path, dist)


def test_an_install_without_package_files_is_refused(tmp_path: Path) -> None:
    dist = PathDistribution(make_site_packages(tmp_path, package=False))
    with pytest.raises(EveBuildError, match="its RECORD lists no package files"):
        write_installed_wheel(tmp_path, dist)


def test_the_wheel_pip_installed_from_is_found_while_it_exists(tmp_path: Path) -> None:
    info = make_site_packages(tmp_path / "site")
    dist = PathDistribution(info)
    assert try_locate_installed_wheel(dist) is None
    wheel = tmp_path / f"eve_build-{__version__}-py3-none-any.whl"
    wheel.write_bytes(b"")
    (info / "direct_url.json").write_text(json.dumps({"url": wheel.as_uri(), "archive_info": {}}))
    assert try_locate_installed_wheel(dist) == wheel
