"""eve-build's dependencies re-packed from this environment: faithful, or not at all."""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import zipfile
from importlib import metadata
from pathlib import Path

from packaging.utils import canonicalize_name

from eve_build.scaffold.wheelhouse import (
    derive_wheel_name,
    find_requirement_closure,
    write_distribution_wheel,
)


def read_record(wheel: Path) -> tuple[dict[str, bytes], list[list[str]]]:
    with zipfile.ZipFile(wheel) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    record_name = next(name for name in members if name.endswith(".dist-info/RECORD"))
    rows = list(csv.reader(io.StringIO(members[record_name].decode())))
    return members, rows


def make_distribution(site: Path, record_extra: str = "", entry_points: str = "") -> Path:
    """A tiny installed distribution `tiny` 1.0 under `site`."""
    (site / "tiny").mkdir(parents=True)
    (site / "tiny" / "__init__.py").write_text("VALUE = 1\n")
    info = site / "tiny-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: tiny\nVersion: 1.0\n")
    (info / "WHEEL").write_text("Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
    (info / "INSTALLER").write_text("pip\n")
    if entry_points:
        (info / "entry_points.txt").write_text(entry_points)
    listed = ["tiny/__init__.py,,", "tiny-1.0.dist-info/METADATA,,", "tiny-1.0.dist-info/WHEEL,,",
              "tiny-1.0.dist-info/INSTALLER,,", "tiny-1.0.dist-info/RECORD,,"]
    if entry_points:
        listed.append("tiny-1.0.dist-info/entry_points.txt,,")
    (info / "RECORD").write_text("\n".join(listed) + "\n" + record_extra)
    return info


def test_the_wheel_name_carries_the_installed_tags() -> None:
    wheel = "Wheel-Version: 1.0\nTag: cp311-cp311-manylinux_2_17_x86_64\n" \
            "Tag: cp311-cp311-manylinux2014_x86_64\n"

    assert derive_wheel_name("pydantic_core-2.50.5.dist-info", wheel) == (
        "pydantic_core-2.50.5-cp311-cp311-manylinux2014_x86_64.manylinux_2_17_x86_64.whl")
    assert derive_wheel_name("x-1.dist-info", "Wheel-Version: 1.0\n") is None
    assert derive_wheel_name("x-1.dist-info", "Tag: py3-none\n") is None


def test_the_closure_of_eve_build_is_what_it_runs_with() -> None:
    closure = find_requirement_closure("eve-build")

    assert closure is not None
    names = {canonicalize_name(dist.metadata["Name"]) for dist in closure}
    assert {"pydantic", "pydantic-core", "typer", "hatchling", "jinja2", "markupsafe"} <= names
    assert "eve-build" not in names
    assert "pytest" not in names, "extras are not followed"
    assert find_requirement_closure("surely-not-installed-eve") is None


def test_an_installed_binary_wheel_is_repacked_with_a_valid_record(tmp_path: Path) -> None:
    dist = metadata.distribution("markupsafe")

    wheel = write_distribution_wheel(tmp_path, dist)

    assert wheel is not None
    assert "-cp3" in wheel.name, "the platform tags of the installed wheel are kept"
    members, rows = read_record(wheel)
    for name, digest, size in rows:
        if name.endswith("/RECORD"):
            continue
        data = members[name]
        expected = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        assert (digest, int(size)) == (f"sha256={expected}", len(data))
    assert {row[0] for row in rows} == set(members)
    assert any(name.endswith(".so") for name in members)
    assert not any(name.endswith(("INSTALLER", "REQUESTED", ".pyc")) for name in members)


def test_console_scripts_are_left_to_the_installer(tmp_path: Path) -> None:
    info = make_distribution(tmp_path / "site", "../bin/tiny,,\n",
                             "[console_scripts]\ntiny = tiny:main\n")

    wheel = write_distribution_wheel(tmp_path, metadata.PathDistribution(info))

    assert wheel is not None and wheel.name == "tiny-1.0-py3-none-any.whl"
    members, _ = read_record(wheel)
    assert sorted(members) == ["tiny-1.0.dist-info/METADATA", "tiny-1.0.dist-info/RECORD",
                               "tiny-1.0.dist-info/WHEEL", "tiny-1.0.dist-info/entry_points.txt",
                               "tiny/__init__.py"]


def test_what_cannot_be_repacked_faithfully_is_not(tmp_path: Path) -> None:
    data_file = make_distribution(tmp_path / "data" / "site", "../share/tiny/data.txt,,\n")
    absolute = make_distribution(tmp_path / "absolute" / "site", "/etc/tiny.conf,,\n")
    from_folder = make_distribution(tmp_path / "folder" / "site")
    (from_folder / "direct_url.json").write_text('{"url": "file:///src/tiny", "dir_info": {}}')
    no_record = make_distribution(tmp_path / "bare" / "site")
    (no_record / "RECORD").unlink()

    for info in (data_file, absolute, from_folder, no_record):
        assert write_distribution_wheel(tmp_path, metadata.PathDistribution(info)) is None
