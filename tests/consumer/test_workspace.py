"""uv workspaces: source-backed extensions built first, skipped when current."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from eve_build.consumer.build import build_agent
from eve_build.consumer.compile import compile_agent
from eve_build.errors import UsageError
from eve_build.formats.compiled import COMPILED_PATH, DIAGNOSTICS_PATH
from tests.conftest import FIXTURES, copy_fixture_tree
from tests.consumer.conftest import MakeApp, build_errors, read_json


def _stats(folder: Path) -> dict[str, tuple[int, int]]:
    return {p.relative_to(folder).as_posix(): (p.stat().st_ino, p.stat().st_mtime_ns)
            for p in sorted(folder.rglob("*"))}


def _states(root: Path, agent: str | None = None) -> dict[str, str]:
    return {m.name: m.state for m in build_agent(root, agent).extensions}


def test_stale_members_are_built_then_skipped_untouched(make_app: MakeApp) -> None:
    root = make_app("directory-mount", "acme-crm", "gizmo")

    assert _states(root) == {"acme-crm": "built", "gizmo": "built"}  # two: in parallel
    outputs = root / "packages" / "acme-crm" / "build"
    before = _stats(outputs)
    compiled = (root / COMPILED_PATH).stat()

    assert _states(root) == {"acme-crm": "up-to-date", "gizmo": "up-to-date"}
    assert _stats(outputs) == before
    after = (root / COMPILED_PATH).stat()
    assert (after.st_ino, after.st_mtime_ns) == (compiled.st_ino, compiled.st_mtime_ns)


def test_a_source_edit_rebuilds_only_that_member(make_app: MakeApp) -> None:
    root = make_app("directory-mount", "acme-crm", "gizmo")
    build_agent(root)
    tool = root / "packages" / "acme-crm" / "extension" / "tools" / "lookup.py"
    tool.write_text(tool.read_text().replace("Look up one CRM record", "Fetch one CRM record"))

    result = build_agent(root)

    assert {m.name: m.state for m in result.extensions} == {"acme-crm": "built",
                                                            "gizmo": "up-to-date"}
    built = root / "packages/acme-crm/build/eve/acme_crm/extension/tools/lookup.py"
    assert "Fetch one CRM record" in built.read_text()


def test_a_hand_edited_output_file_is_rebuilt(make_app: MakeApp) -> None:
    root = make_app("flat", "gizmo")
    build_agent(root)
    output = root / "packages/gizmo/build/eve/gizmo/extension/tools/spin.py"
    original = output.read_text()
    output.write_text(original + "\nraise RuntimeError('edited by hand')\n")

    assert _states(root) == {"gizmo": "built"}
    assert output.read_text() == original


def test_only_mounted_members_are_built(make_app: MakeApp) -> None:
    root = make_app("flat", "gizmo")
    copy_fixture_tree(FIXTURES / "extensions" / "bad" / "syntax-error",
                      root / "packages" / "broken")
    copy_fixture_tree(FIXTURES / "extensions" / "acme-crm", root / "packages" / "acme-crm")

    result = build_agent(root)

    assert _states(root) == {"gizmo": "up-to-date"}
    assert [m.name for m in result.extensions] == ["gizmo"]
    assert not (root / "packages" / "acme-crm" / "build").exists()
    assert not (root / "packages" / "broken" / "build").exists()


def test_a_new_source_file_rebuilds(make_app: MakeApp) -> None:
    root = make_app("flat", "gizmo")
    build_agent(root)
    shutil.copy(root / "packages/gizmo/extension/tools/spin.py",
                root / "packages/gizmo/extension/tools/twirl.py")

    result = build_agent(root)

    assert [m.state for m in result.extensions] == ["built"]
    assert [t.name for t in result.compiled.root.tools] == ["gizmo__spin", "gizmo__twirl"]


def test_modification_times_never_decide_but_an_edited_pyproject_builds_once(
        make_app: MakeApp) -> None:
    """Freshness is content hashes (formats.freshness): a newer pyproject.toml with the same
    bytes is current; an edited one is built once, and the next build does nothing."""
    root = make_app("flat", "gizmo")
    build_agent(root)
    future = time.time() + 3600
    for path in (root / "packages" / "gizmo" / "extension").rglob("*.py"):
        os.utime(path, (future, future))

    assert _states(root) == {"gizmo": "up-to-date"}  # same content hashes

    pyproject = root / "packages" / "gizmo" / "pyproject.toml"
    os.utime(pyproject, (future, future))
    assert _states(root) == {"gizmo": "up-to-date"}

    pyproject.write_text(pyproject.read_text().replace('"pydantic>=2"', '"pydantic>=2", "anyio"'))
    assert _states(root) == {"gizmo": "built"}
    assert _states(root) == {"gizmo": "up-to-date"}


BROKEN_MOUNT = "from bad_syntax_error import bad_syntax_error\n\nmount = bad_syntax_error()\n"


def test_a_failing_member_stops_the_agent_build_and_names_it(make_app: MakeApp) -> None:
    root = make_app("flat", "gizmo")
    copy_fixture_tree(FIXTURES / "extensions" / "bad" / "syntax-error",
                    root / "packages" / "broken")
    (root / "extensions" / "broken.py").write_text(BROKEN_MOUNT)

    errors = build_errors(root)

    assert [e.splitlines()[0] for e in errors] == [
        "packages/broken/extension/tools/search.py:14: error load/syntax-error: invalid syntax: "
        "expected ':'",
        "packages/broken/pyproject.toml: error workspace/extension-build-failed: the workspace "
        "extension `bad-syntax-error` in `packages/broken` failed to build: cannot build "
        "extension `bad-syntax-error`: 1 error; the agent is not built",
    ]


def test_a_failed_build_keeps_the_last_good_output(make_app: MakeApp) -> None:
    root = make_app("flat", "gizmo")
    build_agent(root)
    good = (root / COMPILED_PATH).read_bytes()
    (root / "extensions" / "gizmo.py").write_text("from gizmo import gizmo\nmount = 7\n")

    build_errors(root)

    assert (root / COMPILED_PATH).read_bytes() == good
    diagnostics = read_json(root / DIAGNOSTICS_PATH)
    assert (diagnostics["status"], diagnostics["errors"]) == ("failed", 1)
    assert diagnostics["items"][0]["code"] == "mount/definition-wrong-kind"
    assert diagnostics["items"][0]["file"] == "extensions/gizmo.py"
    assert diagnostics["items"][0]["line"] == 2


def test_diagnostics_describe_the_latest_attempt(make_app: MakeApp) -> None:
    root = make_app("flat", "gizmo")
    (root / "extensions" / "gizmo.py").write_text("from gizmo import gizmo\nmount = 7\n")
    build_errors(root)
    (root / "extensions" / "gizmo.py").write_text("from gizmo import gizmo\nmount = gizmo()\n")

    build_agent(root)

    assert read_json(root / DIAGNOSTICS_PATH) == {
        "status": "ready", "builtWithEve": "0.1.0", "errors": 0, "warnings": 0, "items": []}


def test_two_agents_share_one_workspace_extension(make_app: MakeApp,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_app("workspace-agents", "gizmo")

    support = build_agent(root, "support")
    monkeypatch.chdir(root / "agents" / "sales")
    sales = build_agent(Path())

    assert [m.state for m in support.extensions] == ["built"]
    assert [m.state for m in sales.extensions] == ["up-to-date"]
    assert (root / "agents" / "support" / COMPILED_PATH).is_file()
    assert (root / "agents" / "sales" / COMPILED_PATH).is_file()
    assert not (root / ".eve").exists()
    assert sales.compiled.sys_path == ["../../packages/gizmo/build/eve"]
    assert [t.name for t in support.compiled.root.tools] == ["gizmo__spin"]
    assert [t.name for t in sales.compiled.root.tools] == ["spinner__spin"]


def test_a_workspace_root_needs_the_agent_named(make_app: MakeApp) -> None:
    root = make_app("workspace-agents", "gizmo")

    with pytest.raises(UsageError, match=r"several agents \(`sales`, `support`\)"):
        build_agent(root)
    with pytest.raises(UsageError, match="there is no agent `billing`"):
        build_agent(root, "billing")


def test_an_unreadable_workspace_pyproject_is_an_error(make_app: MakeApp) -> None:
    root = make_app("flat", "gizmo")
    (root / "pyproject.toml").write_text("[tool.uv.workspace\nmembers = [")

    errors = build_errors(root)

    assert [e.splitlines()[0] for e in errors] == [
        "pyproject.toml:1: error workspace/pyproject-invalid: `pyproject.toml` is not valid "
        "TOML, so its `[tool.uv.workspace]` cannot be read"]


def test_info_names_the_real_folder_of_a_failing_member(make_app: MakeApp) -> None:
    root = make_app("flat", "gizmo")
    copy_fixture_tree(FIXTURES / "extensions" / "bad" / "syntax-error",
                    root / "packages" / "broken")
    (root / "extensions" / "broken.py").write_text(BROKEN_MOUNT)

    compiled, diagnostics = compile_agent(root)

    assert compiled is None
    assert [(d.code, d.file) for d in diagnostics.errors] == [
        ("load/syntax-error", "packages/broken/extension/tools/search.py"),
        ("workspace/extension-build-failed", "packages/broken/pyproject.toml")]
    assert not (root / "packages" / "gizmo" / "build").exists()  # built in a scratch copy
