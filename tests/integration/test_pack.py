"""`eve extension pack`: `python -m build`, then a summary of the wheel."""

from __future__ import annotations

import json
import os
import subprocess
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from typer.testing import CliRunner

from eve_build.cli import app
from eve_build.errors import EveBuildError
from eve_build.hatch.pack import (
    ISOLATED_HINT,
    derive_build_command,
    derive_isolated_hint,
    pack_extension,
    read_wheel_summary,
)
from tests.json_schemas import validate as validate_output
from tests.mcp.conftest import eve_command

pytestmark = pytest.mark.integration

REQUIRES = ("channel 1, config 1, connection 1, dynamicConnection 1, dynamicTool 1, extension 1, "
            "hook 1, instructions 1, schedule 1, skill 1, state 1, subagent 1, tool 1")


def test_pack_builds_and_summarises_the_wheel(
    copy_fixture: Callable[[str], Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = copy_fixture("extensions/acme-crm")
    monkeypatch.chdir(tmp_path)

    result = CliRunner().invoke(app, ["extension", "pack", "--path", "acme-crm",
                                      "--no-isolation", "--outdir", "out"])

    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "Built out/acme_crm-0.3.0-py3-none-any.whl (36 files)",
        "  sdist: out/acme_crm-0.3.0.tar.gz",
        "  import package: acme_crm (32 files)",
        f"  manifest requires: {REQUIRES}",
        "  external dependencies: packaging",
    ]
    assert result.stderr == "Packing `acme-crm` with `python -m build`...\n"
    assert (root / "build" / "eve" / "acme_crm" / "__init__.py").is_file()


def test_pack_json(copy_fixture: Callable[[str], Path], tmp_path: Path) -> None:
    root = copy_fixture("extensions/gizmo")

    result = CliRunner().invoke(app, ["extension", "pack", "--path", str(root), "--no-isolation",
                                      "--json"])

    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["status"] == "packed"
    assert payload["wheel"] == str(root / "dist" / "gizmo-1.0.0-py3-none-any.whl")
    assert payload["package"] == "gizmo"
    assert payload["requires"] == {"extension": 1, "hook": 1, "instructions": 1, "tool": 1}
    assert result.stderr == ""
    validate_output("extension-pack.json", payload)
    validate_output("extension-pack.json", payload)


def test_pack_of_a_broken_extension_shows_the_build_diagnostics(
    copy_fixture: Callable[[str], Path]
) -> None:
    root = copy_fixture("extensions/bad/tool-description-missing")

    result = CliRunner().invoke(app, ["extension", "pack", "--path", str(root), "--no-isolation"])

    assert result.exit_code == 1
    assert result.stderr.splitlines()[1:] == [
        "extension/tools/search.py:18: error tool/description-missing: the tool has no "
        "description",
        "  hint: pass `description=\"...\"` to define_tool(): the model reads it to decide when "
        "to call the tool",
        "error: cannot build extension `bad-tool-description-missing`: 1 error",
    ]
    assert not (root / "dist").exists(), "nothing is packed"


def test_a_failed_isolated_build_says_where_eve_build_comes_from(
    copy_fixture: Callable[[str], Path]
) -> None:
    root = copy_fixture("extensions/gizmo")
    calls: list[list[str]] = []

    def failing(argv: Sequence[str], cwd: Path) -> tuple[int, str]:
        calls.append(list(argv))
        return 1, "ERROR No matching distribution found for eve-build==0.1.0\n"

    with pytest.raises(EveBuildError, match="`python -m build` failed \\(exit code 1\\)") as caught:
        pack_extension(root, runner=failing)

    assert caught.value.message == ("`python -m build` failed (exit code 1): ERROR No matching "
                                    "distribution found for eve-build==0.1.0")
    assert caught.value.hint == ISOLATED_HINT
    (argv,) = calls
    staging = Path(argv[argv.index("--outdir") + 1])  # a staging folder inside dist/
    assert staging.parent == root.resolve() / "dist"
    assert argv == derive_build_command(root.resolve(), staging, isolation=True)
    assert "--no-isolation" not in argv
    assert sorted(p.name for p in staging.parent.iterdir()) == []  # nothing half-written left


HATCHLING_MISSING = (
    "* Installing packages in isolated environment:\n  - eve-build==0.1.0\n  - hatchling\n"
    "< ERROR: Could not find a version that satisfies the requirement hatchling (from "
    "versions: none)\n< ERROR: No matching distribution found for hatchling\n"
    "ERROR Failed to install requirements from build-system.requires\n")


def test_a_failed_isolated_build_names_the_requirement_the_index_lacks(
    copy_fixture: Callable[[str], Path]
) -> None:
    root = copy_fixture("extensions/gizmo")

    def failing(argv: Sequence[str], cwd: Path) -> tuple[int, str]:
        return 1, HATCHLING_MISSING

    with pytest.raises(EveBuildError) as caught:
        pack_extension(root, runner=failing)

    assert caught.value.message == ("`python -m build` failed (exit code 1): ERROR: No "
                                    "matching distribution found for hatchling")
    assert caught.value.hint == (
        "an isolated build installs `hatchling` from an index, and pip found no distribution "
        "of it there: check that the index is reachable, set `PIP_FIND_LINKS` to a folder "
        "with its wheel, or pass `--no-isolation` to use this environment's "
        "(docs/publishing.md)")


@pytest.mark.parametrize(("output", "eve_builds"), [
    ("ERROR: No matching distribution found for eve-build==0.1.0\n", True),
    ("ERROR: No matching distribution found for eve_build>=0.1\n", True),
    ("ValueError: tool.eve.extension.output must be relative\n", True),  # no verdict of pip
    ("ERROR: No matching distribution found for hatchling>=1.25\n", False),
    ("ERROR: No matching distribution found for eve-probe-dep\n", False),
])
def test_the_isolated_hint_is_eve_builds_only_for_eve_build(output: str,
                                                            eve_builds: bool) -> None:
    hint = derive_isolated_hint(output)
    assert (hint == ISOLATED_HINT) is eve_builds
    if not eve_builds:
        assert f"installs `{output.rpartition(' for ')[2].strip()}` from an index" in hint


def write_eve_build_stand_in(folder: Path) -> Path:
    """A wheel `eve_build-<version>` with metadata only, requiring nothing: what an index
    holding the pinned eve-build offers pip's resolver (the install never gets that far)."""
    from eve_build import __version__
    from eve_build.toolchain import write_wheel_archive

    dist_info = f"eve_build-{__version__}.dist-info"
    members = {
        f"{dist_info}/METADATA": (f"Metadata-Version: 2.1\nName: eve-build\n"
                                  f"Version: {__version__}\n").encode(),
        f"{dist_info}/WHEEL": (b"Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\n"
                               b"Tag: py3-none-any\n"),
    }
    return write_wheel_archive(folder / f"eve_build-{__version__}-py3-none-any.whl", members,
                               dist_info, zipfile.ZIP_STORED)


def test_pack_against_an_index_without_hatchling_names_it(
    copy_fixture: Callable[[str], Path], tmp_path: Path
) -> None:
    """A real isolated `eve extension pack` with no index and a `PIP_FIND_LINKS` folder
    holding eve-build but no hatchling: the hint names hatchling."""
    root = copy_fixture("extensions/gizmo")
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    write_eve_build_stand_in(wheels)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env.update({"PIP_CONFIG_FILE": os.devnull, "PIP_NO_INDEX": "1",
                "PIP_FIND_LINKS": str(wheels), "PIP_DISABLE_PIP_VERSION_CHECK": "1",
                "NO_COLOR": "1", "COLUMNS": "200"})
    done = subprocess.run(eve_command("extension", "pack", "--path", str(root)),
                          capture_output=True, text=True, env=env, timeout=600)

    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert ("error: `python -m build` failed (exit code 1): ERROR: No matching distribution "
            "found for hatchling") in done.stderr
    assert "an isolated build installs `hatchling` from an index" in done.stderr
    assert "pinned `eve-build`" not in done.stderr


def test_a_wheel_without_a_manifest_is_not_an_extension_wheel(tmp_path: Path) -> None:
    wheel = tmp_path / "plain-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("plain/__init__.py", "")

    with pytest.raises(EveBuildError, match=r"has no `eve-manifest\.json` in its dist-info"):
        read_wheel_summary(wheel)
