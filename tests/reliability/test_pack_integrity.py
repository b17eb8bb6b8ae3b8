"""Class 3 at `eve extension pack`: nothing half-written in dist/, no links out of the sdist."""

from __future__ import annotations

import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from eve_build.errors import DiagnosticsError, EveBuildError
from eve_build.extension.build import build_extension
from eve_build.hatch.pack import STAGING_PREFIX, pack_extension
from eve_build.project.package_files import find_root_links_outside

Copy = Callable[[str], Path]


def _outdir(argv: Sequence[str]) -> Path:
    return Path(argv[list(argv).index("--outdir") + 1])


def test_a_failed_pack_leaves_nothing_half_written_in_dist(copy_fixture: Copy) -> None:
    root = copy_fixture("extensions/gizmo")
    dist = root / "dist"
    dist.mkdir()
    (dist / "gizmo-0.9.0.tar.gz").write_bytes(b"an older release, kept")

    def fails_after_the_sdist(argv: Sequence[str], cwd: Path) -> tuple[int, str]:
        (_outdir(argv) / "gizmo-1.0.0.tar.gz").write_bytes(b"sdist")
        (_outdir(argv) / "gizmo-1.0.0-py3-none-any.whl").write_bytes(b"half a wh")
        return 1, "ERROR the backend crashed while writing the wheel"

    with pytest.raises(EveBuildError, match="`python -m build` failed"):
        pack_extension(root, runner=fails_after_the_sdist)
    assert sorted(p.name for p in dist.iterdir()) == ["gizmo-0.9.0.tar.gz"]


def test_an_unreadable_wheel_never_reaches_dist(copy_fixture: Copy) -> None:
    root = copy_fixture("extensions/gizmo")

    def writes_garbage(argv: Sequence[str], cwd: Path) -> tuple[int, str]:
        (_outdir(argv) / "gizmo-1.0.0-py3-none-any.whl").write_bytes(b"not a zip")
        return 0, ""

    with pytest.raises(EveBuildError, match="is not a readable wheel"):
        pack_extension(root, runner=writes_garbage)
    assert list((root / "dist").iterdir()) == []


def test_a_good_pack_moves_the_pair_into_dist_and_cleans_leftovers(copy_fixture: Copy) -> None:
    root = copy_fixture("extensions/gizmo")
    built = build_extension(root, write=False)
    manifest = (root / "build" / "eve" / "gizmo" / "extension" / "_manifest.json")
    (root / "dist" / f"{STAGING_PREFIX}killed").mkdir(parents=True)

    def builds(argv: Sequence[str], cwd: Path) -> tuple[int, str]:
        with zipfile.ZipFile(_outdir(argv) / "gizmo-1.0.0-py3-none-any.whl", "w") as wheel:
            wheel.writestr("gizmo/__init__.py", "")
            wheel.writestr("gizmo-1.0.0.dist-info/extra_metadata/eve-manifest.json",
                           manifest.read_text())
        (_outdir(argv) / "gizmo-1.0.0.tar.gz").write_bytes(b"sdist")
        return 0, ""

    result = pack_extension(root, runner=builds)
    assert built.project.name == "gizmo"
    assert result.wheel.path == root / "dist" / "gizmo-1.0.0-py3-none-any.whl"
    assert sorted(p.name for p in (root / "dist").iterdir()) == [
        "gizmo-1.0.0-py3-none-any.whl", "gizmo-1.0.0.tar.gz"]


def test_package_root_files_linking_outside_are_refused(copy_fixture: Copy,
                                                        tmp_path: Path) -> None:
    root = copy_fixture("extensions/gizmo")
    elsewhere = tmp_path / "LICENSE-of-another-project"
    elsewhere.write_text("Someone else's license\n")
    (root / "LICENSE").symlink_to(elsewhere)
    (root / "NOTICE").symlink_to("gone.txt")
    (root / "COPYING").symlink_to("README.md")  # inside the package: fine

    assert [(d.code, d.file) for d in find_root_links_outside(root)] == [
        ("pack/file-outside-package", "LICENSE"), ("pack/file-outside-package", "NOTICE")]

    def never(argv: Sequence[str], cwd: Path) -> tuple[int, str]:
        raise AssertionError("nothing is packed")

    with pytest.raises(DiagnosticsError) as caught:
        pack_extension(root, runner=never)
    assert caught.value.message == "cannot pack extension: 2 errors"
    assert not (root / "dist").exists()
