"""`eve build --plan --json`: the workspace build graph, and the CI template that reads it."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import check_jsonschema
import jsonschema
import pytest
from ruamel.yaml import YAML

from eve_build.consumer.plan import derive_plan
from eve_build.extension.build import build_extension
from eve_build.scaffold.workspace import render_workspace_ci
from tests.conftest import FIXTURES, GOLDEN, copy_fixture_tree
from tests.golden_files import assert_matches_golden
from tests.json_schemas import validate

HASH = re.compile(r"^sha256:[0-9a-f]{64}$")


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """Two agents sharing gizmo (declared and mounted), plus acme-crm that nothing uses."""
    root = copy_fixture_tree(FIXTURES / "apps" / "workspace-agents", tmp_path / "ws")
    for name in ("gizmo", "acme-crm"):
        copy_fixture_tree(FIXTURES / "extensions" / name, root / "packages" / name)
    return root


def _normalized(plan: dict[str, Any]) -> dict[str, Any]:
    text = json.dumps(plan, indent=2)
    for extension in plan["extensions"]:
        assert HASH.match(extension["inputHash"])
        text = text.replace(extension["inputHash"], f"<inputHash of {extension['name']}>")
    normalized: dict[str, Any] = json.loads(text)
    return normalized


def test_the_plan_matches_the_golden_shape(workspace: Path, tmp_path: Path,
                                           update_golden: bool) -> None:
    build_extension(workspace / "packages" / "gizmo")

    plan = derive_plan(workspace / "agents" / "support")

    actual = tmp_path / "actual"
    actual.mkdir()
    (actual / "plan.json").write_text(json.dumps(_normalized(plan), indent=2) + "\n")
    assert_matches_golden(actual, GOLDEN / "engine" / "plan", update=update_golden)


def test_the_input_hash_follows_the_sources_and_the_reason_names_the_change(
    workspace: Path
) -> None:
    gizmo = workspace / "packages" / "gizmo"
    build_extension(gizmo)
    first = derive_plan(workspace)["extensions"]
    assert derive_plan(workspace)["extensions"] == first  # stable: nothing changed

    tool = next((gizmo / "extension" / "tools").glob("*.py"))
    tool.write_text(tool.read_text() + "\n# edited\n")
    second = {e["name"]: e for e in derive_plan(workspace)["extensions"]}

    before = {e["name"]: e for e in first}
    assert second["gizmo"]["inputHash"] != before["gizmo"]["inputHash"]
    assert second["acme-crm"]["inputHash"] == before["acme-crm"]["inputHash"]
    assert second["gizmo"]["state"] == "stale"
    assert second["gizmo"]["reason"] == f"`extension/tools/{tool.name}` changed"


def test_the_cli_prints_the_plan_as_json_and_builds_nothing(workspace: Path,
                                                            tmp_path: Path) -> None:
    env = {**os.environ, "EVE_HOME": str(tmp_path / "home")}
    result = subprocess.run([sys.executable, "-m", "eve_build", "build", "--plan", "--json"],
                            cwd=workspace, env=env, capture_output=True, text=True,
                            timeout=60, check=False)

    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    validate("build.json", payload)
    assert payload.pop("status") == "planned"
    assert payload.pop("diagnostics") == {"errors": 0, "warnings": 0, "items": []}
    assert payload == derive_plan(workspace)
    assert not (workspace / "packages" / "gizmo" / "build").exists()
    assert not (workspace / ".eve").exists()


def _workflow() -> dict[str, Any]:
    data: dict[str, Any] = YAML(typ="safe").load(io.StringIO(render_workspace_ci("1.2.3")))
    return data


def test_the_workspace_ci_template_is_a_valid_github_workflow() -> None:
    schema_path = (Path(check_jsonschema.__file__).parent / "builtin_schemas" / "vendor"
                   / "github-workflows.json")
    schema = json.loads(schema_path.read_text(encoding="utf-8"))

    jsonschema.validate(_workflow(), schema)


def test_the_workspace_ci_matrix_is_read_from_the_plan() -> None:
    workflow = _workflow()
    jobs = workflow["jobs"]

    plan_steps = " ".join(str(step.get("run", "")) for step in jobs["plan"]["steps"])
    assert "eve build --plan --json" in plan_steps
    assert jobs["extension"]["needs"] == "plan"
    assert jobs["extension"]["strategy"]["matrix"] == \
        "${{ fromJSON(needs.plan.outputs.matrix) }}"
    cache = next(s for s in jobs["extension"]["steps"] if s.get("id") == "cache")
    assert "matrix.inputHash" in cache["with"]["key"]
    assert jobs["agent"]["needs"] == ["plan", "extension"]
    assert workflow["env"]["EVE_BUILD"] == "eve-build==1.2.3"
    assert all("timeout-minutes" in job for job in jobs.values())
