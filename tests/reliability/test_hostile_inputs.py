"""Class 2, generated: hypothesis feeds every command hostile input until none escapes.

Each test drives one input kind through the core function its command calls (and the
CLI where the CLI adds parsing); the only allowed outcomes are a result or an
EveBuildError / DiagnosticsError, and through the CLI exit codes 0, 1 or 2 with no
traceback. Example counts come from the profile in conftest.py.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import tomli_w
from hypothesis import example, given
from hypothesis import strategies as st
from typer.testing import CliRunner

from eve_build.cli import app
from eve_build.consumer.build import build_agent
from eve_build.consumer.workspace import locate_workspace
from eve_build.errors import EveBuildError
from eve_build.extension.build import build_extension
from eve_build.formats.manifest import ManifestError, parse_manifest
from eve_build.runtime import Agent, load_agent
from eve_build.runtime.arguments import read_arguments
from eve_build.runtime.migration import migrate_snapshot
from eve_build.runtime.snapshot import parse_snapshot
from tests.conftest import FIXTURES, copy_fixture_tree
from tests.reliability.agents import make_misbehaving_agent

TEXT = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=40)
SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | TEXT
JSON = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(TEXT, inner, max_size=4), max_leaves=20)
TOML_SCALARS = st.booleans() | st.integers(-2**63, 2**63 - 1) | TEXT | st.floats(
    allow_nan=False)
TOML = st.recursive(TOML_SCALARS, lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(TEXT, inner, max_size=3), max_leaves=10)
KEYS = st.sampled_from(["source", "output", "external-dependencies", "import-timeout",
                        "sorce", "outptu"]) | TEXT


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.fixture(scope="module")
def gizmo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_fixture_tree(FIXTURES / "extensions" / "gizmo",
                             tmp_path_factory.mktemp("hostile") / "gizmo")


@pytest.fixture(scope="module")
def agent(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Agent]:
    root = make_misbehaving_agent(tmp_path_factory.mktemp("hostile-agent") / "app")
    with load_agent(root, environ={}, hook_budget=0.5) as loaded:
        yield loaded


@pytest.fixture(scope="module")
def one_mount(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = copy_fixture_tree(FIXTURES / "apps" / "one-mount",
                             tmp_path_factory.mktemp("hostile-app") / "app")
    for name in ("acme-crm", "gizmo"):
        copy_fixture_tree(FIXTURES / "extensions" / name, root / "packages" / name)
    build_agent(root)
    return root


COMMANDS = [["build"], ["info"], ["info", "--json"], ["call"], ["call", "--json"],
            ["state", "migrate"], ["extension", "build"], ["extension", "build", "--json"],
            ["extension", "init", "--no-install", "--no-git"], ["--version"], [],
            ["schedules"], ["schedules", "--json"], ["schedule", "run"], ["prompt"],
            ["command"], ["message"], ["message", "--json"], ["connections", "--json"],
            ["extensions", "list", "--json"], ["ext", "list", "--json"], ["ext", "stop"],
            ["ext", "remove"], ["trust"]]
"""Every command that ends by itself (not `serve`, `dev`, `mcp`, nor `ext start`, which
installs a venv), each fed generated arguments."""
OPTIONS = st.sampled_from(["--path", "--json", "--agent", "--subagent", "-o", "--approve",
                           "--dir", "--force", "@-", "@/dev/null", "{}", "."])


@given(command=st.sampled_from(COMMANDS), extra=st.lists(OPTIONS | TEXT, max_size=4))
def test_cli_arguments_never_escape(command: list[str], extra: list[str]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        result = CliRunner(env={"EVE_HOME": folder}).invoke(
            app, [*command, *extra, "--path", folder] if command[:1] != ["extension"] or
            command[1:2] != ["init"] else [*command, *extra, "--dir", f"{folder}/x"],
            input="{}")
    assert result.exit_code in (0, 1, 2), result.output
    assert "Traceback" not in result.output
    assert "internal/unexpected" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


@given(text=TEXT | st.builds(lambda v: json.dumps(v), JSON)
       | st.integers(1, 50_000).map(lambda n: '{"a": ' + _nested(n) + "}"))
def test_call_arguments_never_escape(agent: Agent, text: str) -> None:
    try:
        arguments = read_arguments(text)
    except EveBuildError as exc:
        assert exc.exit_code == 2
        return
    result = agent.call_tool("fine", arguments)
    assert result.status in ("ok", "failed", "blocked")


@given(value=JSON | st.integers(1, 50_000).map(_nested))
def test_manifests_never_escape(value: Any) -> None:
    text = value if isinstance(value, str) and value.startswith("[") else json.dumps(value)
    with contextlib.suppress(ManifestError):
        parse_manifest(text)


@given(manifest=st.fixed_dictionaries({
    "kind": st.just("eve-extension") | TEXT, "formatVersion": st.integers(-1, 3) | TEXT,
    "builtWithEve": TEXT, "requires": st.dictionaries(TEXT, st.integers(-1, 3) | TEXT),
    "package": st.dictionaries(st.sampled_from(["name", "version", "import"]), TEXT),
    "contributions": JSON, "files": st.dictionaries(TEXT, TEXT)}))
def test_manifest_shaped_json_never_escapes(manifest: dict[str, Any]) -> None:
    with contextlib.suppress(ManifestError):
        parse_manifest(json.dumps(manifest))


@example(table={}, project={"dependencies": False})  # found by the thorough profile
@example(table={"source": "", "output": "/"}, project={"version": "01.0"})
@given(table=st.dictionaries(KEYS, TOML, max_size=4),
       project=st.dictionaries(st.sampled_from(["name", "version", "dependencies",
                                                "optional-dependencies"]) | TEXT, TOML,
                               max_size=3))
def test_pyproject_tables_never_escape(gizmo: Path, table: dict[str, Any],
                                       project: dict[str, Any]) -> None:
    data = {"project": {"name": "gizmo", "version": "1.0.0", **project},
            "tool": {"eve": {"extension": table}}}
    (gizmo / "pyproject.toml").write_text(tomli_w.dumps(data))
    try:
        build_extension(gizmo)
    except EveBuildError:
        pass
    finally:
        shutil.rmtree(gizmo / "build", ignore_errors=True)


@given(workspace=st.dictionaries(st.sampled_from(["members", "exclude"]) | TEXT,
                                 TOML | st.lists(st.sampled_from(
                                     [".", "", "/", "..", "**", "packages/*", "a/**b", "~"])
                                     | TEXT, max_size=3), max_size=3))
def test_workspace_tables_never_escape(tmp_path_factory: pytest.TempPathFactory,
                                       workspace: dict[str, Any]) -> None:
    root = tmp_path_factory.mktemp("ws")
    (root / "pyproject.toml").write_text(tomli_w.dumps({"tool": {"uv": {
        "workspace": workspace}}}))
    found, problems = locate_workspace(root)
    assert found is not None or problems


MOUNT_CALLS = st.dictionaries(st.from_regex(r"[a-z_][a-z0-9_]{0,8}", fullmatch=True),
                              st.sampled_from(["1", "'x'", "None", "env('X')", "[1, 2]",
                                               "{'a': 1}", "float('nan')", "object()"]),
                              max_size=3)


@given(body=MOUNT_CALLS.map(lambda kw: "from acme_crm import acme_crm\nfrom eve_build.sdk "
                            "import env\n\nmount = acme_crm(" + ", ".join(
                                f"{k}={v}" for k, v in kw.items()) + ")\n").map(str.encode)
       | st.binary(max_size=200))
def test_mount_files_never_escape(one_mount: Path, body: bytes) -> None:
    mount = one_mount / "agent" / "extensions" / "crm.py"
    original = mount.read_bytes()
    mount.write_bytes(body)
    try:
        build_agent(one_mount)
    except EveBuildError:
        pass
    finally:
        mount.write_bytes(original)


@given(snapshot=JSON | st.fixed_dictionaries({
    "formatVersion": st.integers(-1, 3) | SCALARS,
    "state": st.dictionaries(st.sampled_from(["acme-crm.requests", "gizmo.spins"]) | TEXT,
                             JSON) | JSON,
    "approvals": JSON}))
def test_snapshots_never_escape(one_mount: Path, snapshot: Any) -> None:
    from eve_build.formats.compiled import walk_trees
    from eve_build.runtime.loader import read_compiled_agent

    trees = walk_trees(read_compiled_agent(one_mount).root)
    try:
        checked = parse_snapshot(snapshot, file="snapshot.json")
        migrate_snapshot(checked, [m for t in trees for m in t.mounts],
                         [s for t in trees for s in t.states], file="snapshot.json")
    except EveBuildError:
        pass
