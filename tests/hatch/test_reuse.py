"""The hook skips the pipeline only while nothing the build depends on changed.

The skip is the build stamp of `build_extension()` (`eve_build.engine.stamp`, whose own
rules are in tests/engine/test_stamp.py); here: what the hook ships and shows then.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hatchling.builders.wheel import WheelBuilder

from eve_build.extension.build import BuildResult
from eve_build.hatch import build_data

TOOL = "extension/tools/search.py"


def build_wheel(project: Path, outdir: Path) -> dict[str, bytes]:
    (artifact,) = WheelBuilder(str(project)).build(directory=str(outdir), versions=["standard"])
    with zipfile.ZipFile(artifact) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


@pytest.fixture
def acme(copy_fixture: Callable[[str], Path]) -> Path:
    root = copy_fixture("extensions/acme-crm")
    for generated in ("build", "dist"):
        shutil.rmtree(root / generated, ignore_errors=True)
    assert (root / TOOL).is_file()
    return root


@pytest.fixture
def checked(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """For each build the hook ran: whether it checked the sources (False: skipped)."""
    seen: list[bool] = []
    real = build_data.run_extension_build

    def run(root: Path, options: object) -> BuildResult:
        result = real(root, options)  # type: ignore[arg-type]
        seen.append(result.checked)
        return result

    monkeypatch.setattr(build_data, "run_extension_build", run)
    return seen


def test_an_unchanged_rebuild_ships_the_same_wheel_without_checking(
    acme: Path, tmp_path: Path, checked: list[bool]
) -> None:
    first = build_wheel(acme, tmp_path / "one")
    second = build_wheel(acme, tmp_path / "two")

    assert checked == [True, False]
    assert second == first
    assert "acme_crm/extension/tools/search.py" in second
    assert any(n.endswith(".dist-info/extra_metadata/eve-manifest.json") for n in second)


@pytest.mark.parametrize("change", ["source", "pyproject", "new file", "output edited",
                                    "output file deleted"])
def test_a_change_the_build_depends_on_runs_the_full_build(
    acme: Path, tmp_path: Path, checked: list[bool], change: str
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

    wheel = build_wheel(acme, tmp_path / "two")

    assert checked == [True, True]
    assert b"# edited by hand\n" not in wheel.values()
    assert "acme_crm/extension/tools/search.py" in wheel


def test_bytecode_next_to_the_sources_does_not_count_as_a_change(
    acme: Path, tmp_path: Path, checked: list[bool]
) -> None:
    build_wheel(acme, tmp_path / "one")
    cache = acme / "extension" / "tools" / "__pycache__"
    cache.mkdir(exist_ok=True)
    (cache / "search.cpython-311.pyc").write_bytes(b"\0" * 16)

    build_wheel(acme, tmp_path / "two")

    assert checked == [True, False]


WARNED = '''from pydantic import BaseModel

from eve_build.sdk import define_tool


class Input(BaseModel):
    times: int = "many"


tool = define_tool(description="Count up to a number of times and report it back.",
                   input=Input, execute=lambda input, ctx: input.times)
'''


def test_a_skipped_build_shows_the_warnings_again(
    acme: Path, tmp_path: Path, checked: list[bool], capsys: pytest.CaptureFixture[str]
) -> None:
    (acme / "extension" / "tools" / "count.py").write_text(WARNED)
    build_wheel(acme, tmp_path / "one")
    capsys.readouterr()

    build_wheel(acme, tmp_path / "two")

    captured = capsys.readouterr()
    assert checked == [True, False]
    assert "model/default-invalid" in captured.out + captured.err
    assert "eve: built `acme_crm`" in captured.out + captured.err


PROBE = """
import sys
from hatchling.builders.wheel import WheelBuilder
list(WheelBuilder(sys.argv[1]).build(directory=sys.argv[2], versions=["standard"]))
heavy = ("pydantic", "eve_build.engine.author", "eve_build.formats.manifest", "eve_build.sdk")
print(sorted(m for m in heavy if m in sys.modules))
"""


def test_an_unchanged_wheel_build_imports_no_checking_code(acme: Path, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "EVE_CACHE_DIR"}
    runs = [subprocess.run([sys.executable, "-c", PROBE, str(acme), str(tmp_path / name)],
                           capture_output=True, text=True, env=env, timeout=300, check=False)
            for name in ("one", "two")]

    assert [r.returncode for r in runs] == [0, 0], runs[0].stderr + runs[1].stderr
    assert runs[0].stdout.strip() != "[]"  # the first build checks: the probe can tell
    assert runs[1].stdout.strip() == "[]"
