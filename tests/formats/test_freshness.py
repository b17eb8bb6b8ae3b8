"""The freshness rule and its record (eve_build.formats.freshness), below build and run."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from eve_build._version import __version__
from eve_build.extension.build import build_extension
from eve_build.formats.freshness import (
    RECORD_FILE,
    explain_package_staleness,
    explain_staleness,
    read_inputs,
)

Copy = Callable[[str], Path]
FOUNDATION = {"eve_build", "eve_build._version", "eve_build.capabilities", "eve_build.userfile",
              "eve_build.formats", "eve_build.formats.freshness"}


@pytest.fixture
def gizmo(copy_fixture: Copy, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("EVE_CACHE_DIR", str(tmp_path / "cache"))
    root = copy_fixture("extensions/gizmo")
    build_extension(root)
    return root


def _reason(root: Path) -> str | None:
    return explain_staleness(root / "build" / "eve", root, "gizmo")


def test_the_rule_imports_nothing_of_the_build_or_the_run_side() -> None:
    code = ("import sys, eve_build.formats.freshness\n"
            "print(sorted(m for m in sys.modules if m.startswith('eve_build')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=True)
    assert set(json.loads(done.stdout.replace("'", '"'))) <= FOUNDATION


def test_modification_times_are_never_the_answer(gizmo: Path) -> None:
    assert _reason(gizmo) is None
    future = time.time() + 3600
    for path in [gizmo / "pyproject.toml", *(gizmo / "extension").rglob("*")]:
        os.utime(path, (future, future))
    assert _reason(gizmo) is None
    old = time.time() - 10 ** 6  # an edit that puts the mtime back is still an edit
    spin = gizmo / "extension" / "tools" / "spin.py"
    spin.write_text(spin.read_text() + "\n# edited\n")
    os.utime(spin, (old, old))
    assert _reason(gizmo) == "`extension/tools/spin.py` changed"


def test_each_kind_of_change_has_its_reason(gizmo: Path) -> None:
    extension = gizmo / "extension"
    (extension / "notes.txt").write_text("new\n")
    assert _reason(gizmo) == "`extension/notes.txt` was added"
    (extension / "notes.txt").unlink()
    guard = extension / "hooks" / "guard.py"
    kept = guard.read_bytes()
    guard.unlink()
    assert _reason(gizmo) == "`extension/hooks/guard.py` was removed"
    guard.write_bytes(kept)
    assert _reason(gizmo) is None
    (gizmo / "shared").mkdir()
    (extension / "lib").symlink_to("../shared")
    assert _reason(gizmo) == "a link under `extension/` changed"
    (extension / "lib").unlink()
    shipped = gizmo / "build/eve/gizmo/extension/tools/spin.py"
    shipped.write_text("edited by hand\n")
    assert _reason(gizmo) == ("the output's `gizmo/extension/tools/spin.py` differs from what "
                              "its build wrote (edited by hand?)")
    shipped.unlink()
    assert _reason(gizmo) == "the output lacks `gizmo/extension/tools/spin.py`"
    (gizmo / "build/eve" / RECORD_FILE).unlink()
    assert _reason(gizmo) == "the output has no freshness record (built by an older eve-build)"
    shutil.rmtree(gizmo / "build")
    assert _reason(gizmo) == "no complete output (its manifest is missing or unreadable)"


def test_a_record_of_another_eve_build_is_stale(gizmo: Path) -> None:
    record = gizmo / "build/eve" / RECORD_FILE
    data = json.loads(record.read_text())
    record.write_text(json.dumps({**data, "builtWithEve": "0.0.1"}))
    assert _reason(gizmo) == f"built with eve-build 0.0.1, this is {__version__}"


def test_identical_output_still_refreshes_the_record(gizmo: Path) -> None:
    """Adding a dependency changes no output file, but the record: it is written, and the
    output is current after this one build."""
    record = gizmo / "build/eve" / RECORD_FILE
    before = record.read_bytes()
    pyproject = gizmo / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('"pydantic>=2"', '"pydantic>=2", "anyio"'))
    assert _reason(gizmo) == "`pyproject.toml` changed"

    result = build_extension(gizmo)

    assert result.checked and not result.written  # the output files are the same bytes
    assert RECORD_FILE not in result.files
    assert record.read_bytes() != before
    assert _reason(gizmo) is None
    assert build_extension(gizmo, use_cache=False).written is False
    assert _reason(gizmo) is None  # a full build with the same inputs writes the same record


def test_the_host_checks_only_what_it_can_find(gizmo: Path, tmp_path: Path) -> None:
    """From a package on sys.path: its source is checked through the record; a copy of the
    output without its project, or a package without a record (pip installed), is left to
    the manifest hash the compiled agent records."""
    package = gizmo / "build/eve/gizmo"
    assert explain_package_staleness(package) is None
    (gizmo / "extension/tools/spin.py").write_text("# edited\n")
    assert explain_package_staleness(package) == "`extension/tools/spin.py` changed"

    copied = tmp_path / "deployed" / "eve"
    shutil.copytree(gizmo / "build/eve", copied)
    assert explain_package_staleness(copied / "gizmo") is None
    (copied / RECORD_FILE).unlink()
    assert explain_package_staleness(copied / "gizmo") is None


def test_the_inputs_digest_covers_the_eve_build_version(
        gizmo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    inputs = read_inputs(gizmo, "extension")
    assert inputs is not None
    first = inputs.digest
    monkeypatch.setattr("eve_build.formats.freshness.__version__", "99.0.0")
    assert inputs.digest != first
