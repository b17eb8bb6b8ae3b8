"""The fixture extension that uses every slot builds, deterministically, to golden output."""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from eve_build.extension.build import build_extension
from eve_build.sdk import Mount, Tool
from eve_build.sdk.binding import Binding, ToolContext, bind
from tests.conftest import GOLDEN
from tests.golden_files import assert_matches_golden, read_files


@pytest.fixture
def acme(copy_fixture: Callable[[str], Path]) -> Path:
    return copy_fixture("extensions/acme-crm")


@pytest.fixture
def clean_modules() -> Iterator[None]:
    before = set(sys.modules)
    yield
    for name in set(sys.modules) - before:
        if name.split(".")[0] in ("acme_crm", "gizmo"):
            del sys.modules[name]


def test_every_slot_builds_to_the_golden_output(acme: Path, update_golden: bool) -> None:
    result = build_extension(acme)

    assert result.package_dir == acme / "build" / "eve" / "acme_crm"
    assert_matches_golden(acme / "build" / "eve", GOLDEN / "extension" / "acme-crm",
                          update=update_golden)


def test_building_twice_gives_identical_bytes(copy_fixture: Callable[[str], Path],
                                             tmp_path: Path) -> None:
    # Two clean builds of two copies in different folders, neither through the cache nor
    # a stamp: both import, check and write, and write the same bytes.
    outputs = []
    for name in ("first", "second"):
        root = copy_fixture("extensions/acme-crm")
        moved = root.rename(tmp_path / name)
        assert not (moved / "build").exists()
        result = build_extension(moved, use_cache=False)
        assert result.checked and result.written, "the build really ran"
        outputs.append(read_files(moved / "build" / "eve"))

    assert outputs[0] == outputs[1]
    assert "acme_crm/extension/_manifest.json" in outputs[0]


def test_manifest_records_what_the_extension_uses(acme: Path) -> None:
    manifest = build_extension(acme).manifest
    contributions = manifest.contributions

    assert manifest.requires == {
        "channel": 1, "config": 1, "connection": 1, "dynamicConnection": 1, "dynamicTool": 1,
        "extension": 1, "hook": 1, "instructions": 1, "schedule": 1, "skill": 1, "state": 1,
        "subagent": 1, "tool": 1,
    }
    assert [t["name"] for t in contributions["tools"]] == [
        "admin-reset", "create_contact", "lookup", "search"]
    assert [h["name"] for h in contributions["hooks"]] == ["audit", "auth/load_profile"]
    assert [s["name"] for s in contributions["schedules"]] == ["reports/weekly", "sync"]
    assert [s["name"] for s in contributions["skills"]] == ["summarize", "triage"]
    triage = contributions["skills"][1]
    assert triage["assets"] == ["skills/triage/checklist.md", "skills/triage/templates/reply.txt"]
    reviewer = contributions["subagents"][0]
    assert reviewer["path"] == "reviewer"
    assert reviewer["contributions"]["subagents"][0]["path"] == "reviewer/checker"
    assert manifest.build.external_dependencies == ["packaging"]
    assert contributions["states"] == [{"name": "requests", "file": "lib/state.py"}]
    # ignored files are neither contributions nor shipped
    assert "tools/test_search.py" not in manifest.files
    assert ".notes.txt" not in manifest.files
    assert not any(f.startswith("tests/") for f in manifest.files)


def test_env_secret_in_connection_headers_is_recorded_by_name_only(
        acme: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CRM_API_KEY", "sk-live-never-recorded")
    manifest = build_extension(acme).manifest
    api = next(c for c in manifest.contributions["connections"] if c["name"] == "api")

    assert api["headers"] == ["Authorization"]
    assert api["headerEnv"] == ["CRM_API_KEY"]  # the variable's name, for `eve add` to list
    assert "sk-live-never-recorded" not in json.dumps(manifest.contributions)


def test_built_package_imports_and_mounts(acme: Path, clean_modules: None,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    build_extension(acme)
    monkeypatch.syspath_prepend(str(acme / "build" / "eve"))
    package = importlib.import_module("acme_crm")
    tools = importlib.import_module("acme_crm.tools")
    source = importlib.import_module("acme_crm.extension.tools.search")

    mount = package.acme_crm(api_key="k", region="us")
    assert mount == Mount(package="acme-crm", import_name="acme_crm", version="0.3.0",
                          config={"api_key": "k", "region": "us"})
    assert tools.search is source.tool
    assert isinstance(tools.search, Tool)
    assert tools.search.identity == "acme_crm:tools/search.py"
    assert tools.admin_reset.identity == "acme_crm:tools/admin/reset.py"

    extension_module = importlib.import_module("acme_crm.extension.extension")
    config = extension_module.Config(api_key="k", region="us")
    with bind(Binding(extension_module.extension, config, "extensions/crm")):
        out = tools.search.execute(tools.search.input(query="ada"), ToolContext("search"))
    assert "us" in json.dumps(out)


def test_previous_output_survives_a_failed_build(acme: Path) -> None:
    build_extension(acme)
    before = read_files(acme / "build" / "eve")
    (acme / "extension" / "tools" / "broken.py").write_text("tool = define_tool(\n")

    with pytest.raises(Exception, match="cannot build extension"):
        build_extension(acme)

    assert read_files(acme / "build" / "eve") == before
    left = sorted(p.name for p in (acme / "build").iterdir())
    assert left == [".eve-cache", "eve"]  # the build cache, and no staging left behind
