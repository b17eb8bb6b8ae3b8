"""The build stamp: a build with nothing changed does nothing, and never a stale skip."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from eve_build.cli import app
from eve_build.engine.stamp import STAMP_FILE
from eve_build.extension.build import build_extension
from tests.golden_files import read_files

OUTPUT = Path("build") / "eve"


@pytest.fixture
def gizmo(copy_fixture: Callable[[str], Path], tmp_path: Path,
          monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("EVE_CACHE_DIR", str(tmp_path / "cache"))
    root = copy_fixture("extensions/gizmo")
    assert build_extension(root).checked is True
    return root


def test_a_build_with_nothing_changed_is_skipped_and_reports_the_same(gizmo: Path) -> None:
    first = CliRunner().invoke(app, ["extension", "build", "--path", str(gizmo), "--json"])
    before = read_files(gizmo / OUTPUT)

    again = build_extension(gizmo)
    second = CliRunner().invoke(app, ["extension", "build", "--path", str(gizmo), "--json"])

    assert again.checked is False and again.written is False and again.imported == ()
    assert json.loads(second.stdout) == json.loads(first.stdout)
    assert again.tools == 1
    assert again.manifest.package.name == "gizmo"  # read from the output when asked
    assert read_files(gizmo / OUTPUT) == before


PROBE = """
import sys
from pathlib import Path
from eve_build.extension.build import build_extension
result = build_extension(Path(sys.argv[1]))
heavy = ("pydantic", "eve_build.engine.author", "eve_build.formats.manifest", "eve_build.sdk")
print(result.checked, sorted(m for m in heavy if m in sys.modules))
"""


def test_a_skipped_build_imports_no_checking_code(gizmo: Path, tmp_path: Path) -> None:
    env = {**os.environ, "EVE_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run([sys.executable, "-c", PROBE, str(gizmo)], capture_output=True,
                          text=True, env=env, timeout=120, check=False)

    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False []"


@pytest.mark.parametrize("changed", ["extension/tools/spin.py", "extension/README.txt",
                                     "extension/instructions.md", "pyproject.toml"])
def test_any_change_to_the_sources_or_pyproject_builds_in_full(gizmo: Path,
                                                               changed: str) -> None:
    path = gizmo / changed
    path.write_text((path.read_text() if path.exists() else "") + "\n# changed\n")

    assert build_extension(gizmo).checked is True
    assert build_extension(gizmo).checked is False  # and the new stamp holds


def test_an_output_edited_by_hand_is_rebuilt(gizmo: Path) -> None:
    good = read_files(gizmo / OUTPUT)
    edited = gizmo / OUTPUT / "gizmo" / "__init__.py"
    edited.write_text(edited.read_text() + "\nprint('tampered')\n")

    result = build_extension(gizmo)

    assert result.checked is True and result.written is True
    assert read_files(gizmo / OUTPUT) == good


@pytest.mark.parametrize("change", ["removed", "added"])
def test_an_output_file_removed_or_added_by_hand_is_rebuilt(gizmo: Path, change: str) -> None:
    good = read_files(gizmo / OUTPUT)
    if change == "removed":
        (gizmo / OUTPUT / "gizmo" / "py.typed").unlink()
    else:
        (gizmo / OUTPUT / "gizmo" / "stray.py").write_text("x = 1\n")

    assert build_extension(gizmo).checked is True
    assert read_files(gizmo / OUTPUT) == good


@pytest.mark.parametrize("damage", [b"", b"\x00\xff not json", b'{"format": "other"}',
                                    b'{"format": "eve-build-stamp-1", "fingerprint": 3}'])
def test_a_damaged_stamp_is_no_stamp(gizmo: Path, tmp_path: Path, damage: bytes) -> None:
    (tmp_path / "cache" / STAMP_FILE).write_bytes(damage)

    assert build_extension(gizmo).checked is True
    assert build_extension(gizmo).checked is False  # replaced by a good one


def test_no_cache_never_reads_the_stamp(gizmo: Path) -> None:
    assert build_extension(gizmo, use_cache=False).checked is True


WARNED = '''from pydantic import BaseModel

from eve_build.sdk import define_tool


class Input(BaseModel):
    times: int = "many"


tool = define_tool(description="Count up to a number of times and report it back.",
                   input=Input, execute=lambda input, ctx: input.times)
'''


def test_a_skipped_build_reports_the_warnings_of_the_build_it_skips(gizmo: Path) -> None:
    (gizmo / "extension" / "tools" / "count.py").write_text(WARNED)
    full = build_extension(gizmo)

    skipped = build_extension(gizmo)

    assert [w.code for w in full.warnings] == ["model/default-invalid"]
    assert skipped.checked is False
    assert skipped.warnings == full.warnings


def test_an_eve_build_edited_in_place_builds_in_full(gizmo: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from eve_build.engine import stamp

    monkeypatch.setattr(stamp, "derive_toolchain_stamp", lambda: "another eve-build")

    assert build_extension(gizmo).checked is True
