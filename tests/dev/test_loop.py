"""`eve dev` rounds: only the changed extension is rebuilt; a failure keeps the last good."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

from eve_build.dev.loop import (
    DevSession,
    Generation,
    is_source_change,
    run_dev,
    watch_with_watchfiles,
)
from eve_build.formats.compiled import COMPILED_PATH
from eve_build.runtime.loader import read_compiled_agent
from tests.conftest import FIXTURES, copy_fixture_tree


def _app(tmp_path: Path) -> Path:
    root = tmp_path / "directory-mount"  # mounts both extensions
    copy_fixture_tree(FIXTURES / "apps" / "directory-mount", root)
    for name in ("acme-crm", "gizmo"):
        copy_fixture_tree(FIXTURES / "extensions" / name, root / "packages" / name)
    return root


def _scripted(*batches: set[Path]) -> Callable[[list[Path]], Iterator[set[Path]]]:
    def watch(roots: list[Path]) -> Iterator[set[Path]]:
        assert roots
        yield from batches

    return watch


def test_a_change_rebuilds_only_the_affected_extension(tmp_path: Path) -> None:
    root = _app(tmp_path)
    gizmo_tool = root / "packages" / "gizmo" / "extension" / "tools" / "spin.py"
    gizmo_manifest = root / "packages" / "gizmo" / "build" / "eve" / "gizmo" / "extension"

    session = DevSession(root)
    first = session.build()
    assert first.ok and set(first.rebuilt) == {"acme-crm", "gizmo"}
    acme_manifest = root / "packages/acme-crm/build/eve/acme_crm/extension/_manifest.json"
    acme_mtime = acme_manifest.stat().st_mtime_ns

    gizmo_tool.write_text(gizmo_tool.read_text().replace('"spins"', '"turns"'))
    second = session.build({gizmo_tool})

    assert second.ok
    assert second.rebuilt == ("gizmo",)
    assert second.changed == ("packages/gizmo/extension/tools/spin.py",)
    assert acme_manifest.stat().st_mtime_ns == acme_mtime
    assert '"turns"' in (gizmo_manifest.parent / "extension" / "tools" / "spin.py").read_text()


def test_a_failed_round_keeps_the_previous_generation(tmp_path: Path) -> None:
    root = _app(tmp_path)
    session = DevSession(root)
    assert session.build().ok
    compiled = (root / COMPILED_PATH).read_bytes()
    broken = root / "packages" / "gizmo" / "extension" / "tools" / "spin.py"
    good_output = (root / "packages/gizmo/build/eve/gizmo/extension/tools/spin.py").read_bytes()
    broken.write_text("tool = (\n")

    failed = session.build({broken})

    assert not failed.ok
    assert {(d.code, d.file) for d in failed.diagnostics} == {
        ("load/syntax-error", "packages/gizmo/extension/tools/spin.py"),
        ("workspace/extension-build-failed", "packages/gizmo/pyproject.toml"),
    }
    assert (root / COMPILED_PATH).read_bytes() == compiled
    assert (root / "packages/gizmo/build/eve/gizmo/extension/tools/spin.py").read_bytes() \
        == good_output
    assert session.last_good is not None and session.last_good.number == 1


def test_run_dev_ignores_output_and_cache_changes(tmp_path: Path) -> None:
    root = _app(tmp_path)
    source = root / "agent" / "instructions.md"
    generations: list[Generation] = []

    run_dev(DevSession(root), generations.append, watch=_scripted(
        {root / ".eve" / "compile" / "compiled-agent.json"},
        {root / "packages" / "gizmo" / "build" / "eve" / "gizmo" / "__init__.py"},
        {source},
    ))

    assert [g.number for g in generations] == [1, 2]
    assert generations[1].changed == ("agent/instructions.md",)


def test_source_change_filter() -> None:
    assert is_source_change(Path("agent/tools/x.py"))
    for ignored in ("build/eve/x.py", ".eve/a.json", "x/__pycache__/y.pyc", ".git/HEAD",
                    ".venv/lib/z.py"):
        assert not is_source_change(Path(ignored))


def test_the_real_file_watcher_triggers_a_round(tmp_path: Path) -> None:
    root = _app(tmp_path)
    stop = threading.Event()
    second = threading.Event()
    generations: list[Generation] = []

    def record(generation: Generation) -> None:
        generations.append(generation)
        if generation.number == 2:
            second.set()
            stop.set()

    worker = threading.Thread(target=run_dev, args=(DevSession(root), record), kwargs={
        "watch": lambda paths: watch_with_watchfiles(paths, stop)}, daemon=True)
    worker.start()
    try:
        for _ in range(200):  # wait for the first generation before editing
            if generations:
                break
            stop.wait(0.05)
        # The watcher starts just after the first round: edit until it has seen one.
        for attempt in range(60):
            (root / "agent" / "instructions.md").write_text(f"Be brief ({attempt}).\n")
            if second.wait(0.5):
                break
        assert second.is_set(), "no second generation after a source change"
    finally:
        stop.set()
        worker.join(10)
    assert generations[1].ok
    assert generations[1].changed == ("agent/instructions.md",)


def test_eve_dev_on_a_missing_folder_is_a_usage_error(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from eve_build.cli import app

    result = CliRunner().invoke(app, ["dev", "--path", str(tmp_path / "missing")])

    assert result.exit_code == 2
    assert "Invalid value for '--path'" in result.stderr and "does not exist" in result.stderr
    assert result.stdout == ""
    assert "Traceback" not in result.output


def test_a_source_folder_named_build_inside_the_agent_is_watched() -> None:
    assert is_source_change(Path("agent/tools/build/deploy.py"))
    assert not is_source_change(Path("build/eve/x.py"))


def test_watchfiles_default_filter_drops_editor_and_cache_files() -> None:
    for ignored in ("agent/tools/.search.py.swp", "agent/tools/search.py~",
                    "agent/tools/__pycache__/search.cpython-311.pyc", ".ruff_cache/x",
                    "agent/.mypy_cache/y.json"):
        assert not is_source_change(Path(ignored)), ignored
    assert is_source_change(Path("agent/tools/search.py"))
    assert is_source_change(Path("agent/instructions.md"))


def test_a_round_after_an_upgrade_rebuilds_and_says_what_changed(tmp_path: Path) -> None:
    root = _app(tmp_path)
    session = DevSession(root)
    assert session.build().upgrades == ()
    pyproject = root / "packages" / "gizmo" / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('version = "1.0.0"', 'version = "1.1.0"'))

    generation = session.build({pyproject})

    assert generation.ok
    assert generation.rebuilt == ("gizmo",)
    assert generation.upgrades == ("gizmo 1.0.0 -> 1.1.0: no change to its surface",)


def test_a_changed_tool_description_is_a_surface_change(tmp_path: Path) -> None:
    root = _app(tmp_path)
    session = DevSession(root)
    session.build()
    spin = root / "packages" / "gizmo" / "extension" / "tools" / "spin.py"
    spin.write_text(spin.read_text().replace("Spin the gizmo a number of times",
                                             "Spin the gizmo some times"))

    generation = session.build({spin})

    assert generation.upgrades == ("gizmo 1.0.0 rebuilt: tool gizmo__spin: description changed",)


def test_eve_build_and_eve_dev_count_tools_the_same_way(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from eve_build.cli import app

    root = _app(tmp_path)
    built = CliRunner().invoke(app, ["build", "--path", str(root)])
    generation = DevSession(root).build()

    info = CliRunner().invoke(app, ["info", "--json", "--path", str(root)])
    listed = json.loads(info.stdout)
    compiled = read_compiled_agent(root)
    assert len(compiled.root.subagents) > 0  # subagents with tools of their own
    counts = generation.contributions
    assert counts["tools"] == len(listed["tools"]) == len(compiled.root.tools)
    assert counts["subagents"] == len(listed["subagents"])
    assert f"({counts['tools']} tools, {counts['mounts']} mounts, {counts['subagents']} " \
           "subagents)" in built.stdout.splitlines()[-1]
