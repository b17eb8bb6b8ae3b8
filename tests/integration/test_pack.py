"""`eve extension pack`: `python -m build`, then a summary of the wheel."""

from __future__ import annotations

import json
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
    pack_extension,
    read_wheel_summary,
)
from tests.json_schemas import validate as validate_output

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


def test_a_wheel_without_a_manifest_is_not_an_extension_wheel(tmp_path: Path) -> None:
    wheel = tmp_path / "plain-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("plain/__init__.py", "")

    with pytest.raises(EveBuildError, match=r"has no `eve-manifest\.json` in its dist-info"):
        read_wheel_summary(wheel)
