"""The hook reuses its last build only while nothing the build depends on changed."""

from __future__ import annotations

import json
import shutil
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hatchling.builders.wheel import WheelBuilder

from eve_build.engine.cache import BuildCache, locate_cache_dir
from eve_build.hatch import build_data, reuse
from eve_build.hatch.reuse import (
    BuildRecord,
    read_build_inputs,
    try_read_current_record,
    write_build_record,
)

TOOL = "extension/tools/search.py"


def build_wheel(project: Path, outdir: Path) -> dict[str, bytes]:
    (artifact,) = WheelBuilder(str(project)).build(directory=str(outdir), versions=["standard"])
    with zipfile.ZipFile(artifact) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def current_record(project: Path) -> BuildRecord | None:
    inputs = read_build_inputs(project)
    assert inputs is not None
    return try_read_current_record(inputs)


@pytest.fixture
def acme(copy_fixture: Callable[[str], Path]) -> Path:
    root = copy_fixture("extensions/acme-crm")
    for generated in ("build", "dist"):
        shutil.rmtree(root / generated, ignore_errors=True)
    assert (root / TOOL).is_file()
    return root


@pytest.fixture
def full_builds(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The roots the hook ran the full build for, in order."""
    calls: list[Path] = []
    real = build_data.run_extension_build

    def run(root: Path, options: object) -> object:
        calls.append(root)
        return real(root, options)  # type: ignore[arg-type]

    monkeypatch.setattr(build_data, "run_extension_build", run)
    return calls


def test_an_unchanged_rebuild_ships_the_same_wheel_without_building(
    acme: Path, tmp_path: Path, full_builds: list[Path]
) -> None:
    first = build_wheel(acme, tmp_path / "one")
    second = build_wheel(acme, tmp_path / "two")

    assert full_builds == [acme]
    assert second == first
    record = current_record(acme)
    assert record is not None
    assert record.import_name == "acme_crm"
    assert set(record.files) == {p.relative_to(acme / "build/eve/acme_crm").as_posix()
                                 for p in (acme / "build/eve/acme_crm").rglob("*") if p.is_file()}


@pytest.mark.parametrize("change", ["source", "pyproject", "new file", "output edited",
                                    "output file deleted"])
def test_a_change_the_build_depends_on_runs_the_full_build(
    acme: Path, tmp_path: Path, full_builds: list[Path], change: str
) -> None:
    build_wheel(acme, tmp_path / "one")
    if change == "source":
        tool = acme / TOOL
        tool.write_text(tool.read_text() + "\n# edited\n")
    elif change == "pyproject":
        pyproject = acme / "pyproject.toml"
        pyproject.write_text(pyproject.read_text() + "\n# edited\n")
    elif change == "new file":
        (acme / "extension" / "notes.txt").write_text("notes\n")
    elif change == "output edited":
        (acme / "build/eve/acme_crm/__init__.py").write_text("# edited by hand\n")
    else:
        (acme / "build/eve/acme_crm" / TOOL).unlink()

    assert current_record(acme) is None
    wheel = build_wheel(acme, tmp_path / "two")

    assert full_builds == [acme, acme]
    assert b"# edited by hand\n" not in wheel.values()
    assert current_record(acme) is not None, "the new build is recorded"


def test_bytecode_next_to_the_sources_does_not_count_as_a_change(
    acme: Path, tmp_path: Path, full_builds: list[Path]
) -> None:
    build_wheel(acme, tmp_path / "one")
    cache = acme / "extension" / "tools" / "__pycache__"
    cache.mkdir(exist_ok=True)
    (cache / "search.cpython-311.pyc").write_bytes(b"\0" * 16)

    build_wheel(acme, tmp_path / "two")

    assert full_builds == [acme]


def test_a_corrupt_or_foreign_record_is_ignored(acme: Path, tmp_path: Path,
                                                full_builds: list[Path]) -> None:
    build_wheel(acme, tmp_path / "one")
    inputs = read_build_inputs(acme)
    assert inputs is not None
    cache = BuildCache(locate_cache_dir(inputs.project.output_dir))
    cache.write({inputs.key: {"import_name": "acme_crm", "files": "not a mapping"}})
    assert current_record(acme) is None

    entry = next(locate_cache_dir(inputs.project.output_dir).glob(f"*/{inputs.key}.json"))
    entry.write_bytes(entry.read_bytes().replace(b"acme_crm", b"other_pkg"))  # digest breaks
    assert current_record(acme) is None

    build_wheel(acme, tmp_path / "two")
    assert full_builds == [acme, acme]


def test_a_reused_build_shows_the_recorded_warnings_again(
    acme: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    build_wheel(acme, tmp_path / "one")
    inputs = read_build_inputs(acme)
    record = current_record(acme)
    assert inputs is not None and record is not None
    warning = "extension/tools/search.py:3: warning x/y: recorded warning"
    write_build_record(inputs, BuildRecord(**{**record.to_json(), "warnings": (warning,)}))
    capsys.readouterr()

    build_wheel(acme, tmp_path / "two")

    captured = capsys.readouterr()
    assert warning in captured.out + captured.err
    assert "eve: built `acme_crm`" in captured.out + captured.err


def test_a_record_round_trips_through_json() -> None:
    record = BuildRecord(import_name="a", output="build/eve", manifest="extension/_manifest.json",
                         metadata_name="eve-manifest.json", files={"__init__.py": "ab"},
                         warnings=("w",))

    assert BuildRecord.from_json(json.loads(json.dumps(record.to_json()))) == record
    assert BuildRecord.from_json({"import_name": "a"}) is None
    assert BuildRecord.from_json([1, 2]) is None


def test_an_eve_build_edited_in_place_runs_the_full_build(
    acme: Path, tmp_path: Path, full_builds: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    build_wheel(acme, tmp_path / "one")
    stamp = reuse.derive_toolchain_stamp()
    assert stamp == reuse.derive_toolchain_stamp(), "the stamp is stable while nothing changes"
    monkeypatch.setattr(reuse, "derive_toolchain_stamp", lambda: stamp + "-edited")

    build_wheel(acme, tmp_path / "two")

    assert full_builds == [acme, acme]
