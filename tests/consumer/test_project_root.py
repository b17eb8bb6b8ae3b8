"""Commands find their project upward from the working folder, like git."""

from __future__ import annotations

from pathlib import Path

import pytest

from eve_build.consumer.build import build_agent
from eve_build.errors import UsageError
from eve_build.extension.build import build_extension
from eve_build.formats.compiled import COMPILED_PATH
from eve_build.project.app import locate_app
from eve_build.runtime import load_agent
from tests.conftest import FIXTURES, copy_fixture_tree
from tests.consumer.conftest import MakeApp


@pytest.mark.parametrize("inside", ["agent", "agent/tools", "agent/extensions"])
def test_a_build_inside_the_agent_folder_builds_the_app_and_writes_no_agent_eve(
        make_app: MakeApp, inside: str) -> None:
    root = make_app("one-mount", "acme-crm")
    result = build_agent(root / inside)
    assert result.app_root == root
    assert (root / COMPILED_PATH).is_file()
    assert not (root / "agent" / ".eve").exists()
    assert not (root / inside / ".eve").exists()


def test_a_call_from_a_subfolder_loads_the_app_it_is_in(make_app: MakeApp) -> None:
    root = make_app("one-mount", "acme-crm")
    build_agent(root)
    with load_agent(root / "agent" / "tools", environ={"CRM_API_KEY": "k"}) as agent:
        assert "greet" in agent.tools()


def test_inside_a_workspace_agent_the_agent_is_the_one_around_the_folder(
        make_app: MakeApp) -> None:
    root = make_app("workspace-agents", "gizmo")
    app, found = locate_app(root / "agents" / "support" / "agent" / "extensions")
    assert found == []
    assert app is not None
    assert app.root == root / "agents" / "support"


def test_inside_a_workspace_member_with_several_agents_asks_for_one(make_app: MakeApp) -> None:
    root = make_app("workspace-agents", "gizmo")
    with pytest.raises(UsageError, match="name one with `--agent NAME`"):
        locate_app(root / "packages" / "gizmo" / "extension")


def test_a_flat_app_is_still_found_where_it_is(make_app: MakeApp) -> None:
    root = make_app("flat")
    app, _ = locate_app(root)
    assert app is not None
    assert app.root == root
    assert app.flat


def test_extension_build_runs_in_the_nearest_extension_package(tmp_path: Path) -> None:
    package = copy_fixture_tree(FIXTURES / "extensions" / "gizmo", tmp_path / "gizmo")
    result = build_extension(package / "extension" / "tools")
    assert result.project.root == package
    assert (package / "build" / "eve" / "gizmo" / "extension" / "_manifest.json").is_file()
    assert not (package / "extension" / "tools" / "build").exists()
