"""`eve extension build` reaches the build core without typer, rich or pydantic
(eve_build.cli.fast), and says exactly what the typer command says."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

# the `eve` console entry (`eve_build.cli:main`), then what it imported
PROBE = """
import json, sys
sys.argv = ["eve", *sys.argv[1:]]
from eve_build.cli import main
try:
    main()
finally:
    sys.stdout.flush()
    print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0]
                            in ("typer", "click", "rich", "pydantic", "pydantic_core",
                                "jinja2", "yaml", "hatchling"))), file=sys.stderr)
"""
TYPER = "import sys; from eve_build.cli.root import main; sys.argv[0] = 'eve'; main()"


def run(code: str, args: list[str], cwd: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "EVE_HOME": str(tmp_path / "home"), "NO_COLOR": "1",
           "EVE_CACHE_DIR": str(tmp_path / "cache")}
    return subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120, check=False)


def test_a_stamp_current_build_imports_no_cli_library_and_no_pydantic(
        copy_fixture: Callable[[str], Path], tmp_path: Path) -> None:
    root = copy_fixture("extensions/gizmo")
    first = run(PROBE, ["extension", "build"], root, tmp_path)
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stderr.splitlines()[-1]) == []  # a full build: pydantic is
    # the workers' (the zygote's), not the build process's

    again = run(PROBE, ["extension", "build"], root, tmp_path)

    assert again.returncode == 0, again.stderr
    assert json.loads(again.stderr.splitlines()[-1]) == []
    assert again.stdout == first.stdout
    assert again.stdout.startswith("Built gizmo ")


@pytest.mark.parametrize("args", [["extension", "build"], ["-q", "extension", "build"],
                                  ["extension", "build", "--no-cache"]])
def test_the_fast_path_prints_what_the_typer_command_prints(
        copy_fixture: Callable[[str], Path], tmp_path: Path, args: list[str]) -> None:
    root = copy_fixture("extensions/gizmo")
    (root / "extension" / "tools" / "broken.py").write_text("tool = define_tool(\n")
    fast = run(PROBE, args, root, tmp_path)
    typer = run(TYPER, args, root, tmp_path)

    assert fast.returncode == typer.returncode == 1
    assert fast.stdout == typer.stdout
    assert fast.stderr.splitlines()[:-1] == typer.stderr.splitlines()
    assert "extension/tools/broken.py" in fast.stderr and "Traceback" not in fast.stderr
    assert "typer" in json.loads(fast.stderr.splitlines()[-1])  # (only to render the error)

    (root / "extension" / "tools" / "broken.py").unlink()
    fast = run(PROBE, args, root, tmp_path)
    typer = run(TYPER, args, root, tmp_path)
    assert fast.returncode == typer.returncode == 0
    assert fast.stdout == typer.stdout
    assert (fast.stdout == "") == ("-q" in args)  # `-q`: nothing on success


def test_other_command_lines_go_to_typer(copy_fixture: Callable[[str], Path],
                                         tmp_path: Path) -> None:
    root = copy_fixture("extensions/gizmo")
    done = run(PROBE, ["extension", "build", "--json"], root, tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["status"] == "built"
    assert "typer" in json.loads(done.stderr.splitlines()[-1])
    usage = run(PROBE, ["extension", "build", "--nope"], root, tmp_path)
    assert usage.returncode == 2 and "No such option" in usage.stderr


def test_eve_build_takes_the_fast_path_and_prints_what_typer_prints(
        copy_fixture: Callable[[str], Path], tmp_path: Path) -> None:
    app = copy_fixture("apps/flat")
    (app / "packages").mkdir()
    copy_fixture("extensions/gizmo").rename(app / "packages" / "gizmo")

    first = run(PROBE, ["build"], app, tmp_path)
    fast = run(PROBE, ["build"], app, tmp_path)
    typer = run(TYPER, ["build"], app, tmp_path)

    assert first.returncode == fast.returncode == typer.returncode == 0, first.stderr
    assert "gizmo: built" in first.stdout
    assert fast.stdout == typer.stdout
    assert fast.stdout.endswith("(unchanged)\n")
    imported = json.loads(fast.stderr.splitlines()[-1])
    assert not {"typer", "click", "rich"} & set(imported)  # (manifests are read by pydantic)


def test_the_zygote_guess_reads_no_fifo_and_sees_an_edit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from eve_build.cli.fast import _likely_to_run

    monkeypatch.chdir(tmp_path)
    cache = tmp_path / "cache"
    assert _likely_to_run(cache)  # no stamp: a first build
    (tmp_path / "extension" / "tools").mkdir(parents=True)
    tool = tmp_path / "extension" / "tools" / "a.py"
    tool.write_text("x = 1\n")
    (tmp_path / "pyproject.toml").write_text('[tool.eve.extension]\nsource = "extension"\n')
    cache.mkdir()
    (cache / "build-stamp.json").write_text("{}")
    later = (cache / "build-stamp.json").stat().st_mtime_ns + 10**9
    for old in (tool, tmp_path / "pyproject.toml"):
        os.utime(old, ns=(0, 0))
    assert not _likely_to_run(cache)  # nothing newer than the stamp
    os.utime(tool, ns=(later, later))
    assert _likely_to_run(cache)  # an edit
    os.utime(tool, ns=(0, 0))
    (tmp_path / "pyproject.toml").unlink()
    os.mkfifo(tmp_path / "pyproject.toml")
    os.utime(tmp_path / "pyproject.toml", ns=(0, 0))
    assert not _likely_to_run(cache)  # a FIFO is never opened (the build reports it)


def test_eve_build_of_an_agent_with_subagents_prints_what_typer_prints(
        copy_fixture: Callable[[str], Path], tmp_path: Path) -> None:
    """Both paths count as `eve info` does (acme-crm contributes subagents)."""
    app = copy_fixture("apps/one-mount")
    (app / "packages").mkdir(exist_ok=True)
    copy_fixture("extensions/acme-crm").rename(app / "packages" / "acme-crm")

    first = run(PROBE, ["build"], app, tmp_path)
    typer = run(TYPER, ["build"], app, tmp_path)
    fast = run(PROBE, ["build"], app, tmp_path)

    assert first.returncode == typer.returncode == fast.returncode == 0, first.stderr
    assert fast.stdout == typer.stdout
    assert "(5 tools, 1 mount, 2 subagents)" in first.stdout
