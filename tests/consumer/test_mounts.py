"""Mounts: namespaces, instances, config records, states, identities, layouts."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from eve_build.consumer.build import build_agent
from eve_build.extension.build import build_extension
from eve_build.formats.compiled import read_compiled
from eve_build.formats.manifest import MANIFEST_FILENAME, read_manifest
from tests.conftest import FIXTURES, copy_fixture_tree
from tests.consumer.conftest import MakeApp, build_errors, find_tree, names


def test_one_mount_namespaces_every_contribution(make_app: MakeApp) -> None:
    root = make_app("one-mount", "acme-crm", "gizmo")

    result = build_agent(root)

    tree = read_compiled(root).root
    assert result.compiled.root == tree
    assert names(tree.tools) == ["greet", "crm__admin-reset", "crm__create_contact",
                                 "crm__lookup", "crm__search"]
    assert names(tree.channels) == ["crm__webhook"]
    assert names(tree.connections) == ["crm__api", "crm__directory"]
    assert names(tree.schedules) == ["crm__reports/weekly", "crm__sync"]
    assert names(tree.skills) == ["escalate", "crm__summarize", "crm__triage"]
    assert [s.path for s in tree.subagents] == ["crm__reviewer"]
    assert [s.path for s in tree.subagents[0].subagents] == ["crm__reviewer/checker"]
    # routes and cron stay as the package wrote them; hooks keep local names
    assert tree.channels[0].details["route"] == "/crm/webhook"
    assert [s.details["cron"] for s in tree.schedules] == ["0 9 * * 1", "*/15 * * * *"]
    assert [(h.mount, h.name) for h in tree.hooks] == [
        (None, "log"), ("crm", "audit"), ("crm", "auth/load_profile")]
    assert tree.model == "gpt-test" and tree.agent_module == "eve_agent.agent"


def test_one_mount_records_where_code_lives_and_its_identity(make_app: MakeApp) -> None:
    root = make_app("one-mount", "acme-crm", "gizmo")

    tree = build_agent(root).compiled.root

    search = next(t for t in tree.tools if t.name == "crm__search")
    assert (search.module, search.attribute, search.source) == (
        "acme_crm.extension.tools.search", "tool", "package")
    manifest = read_manifest(root / "packages/acme-crm/build/eve/acme_crm/extension"
                             / MANIFEST_FILENAME)
    [original] = [t for t in manifest.contributions["tools"] if t["name"] == "search"]
    assert search.identity == original["identity"] != ""
    assert (search.mount, search.mount_path, search.local_name) == (
        "crm", "extensions/crm", "search")
    greet = tree.tools[0]
    assert (greet.module, greet.file, greet.source) == (
        "eve_agent.tools.greet", "agent/tools/greet.py", "agent")


def test_mount_config_keeps_env_deferred_and_applies_defaults(make_app: MakeApp) -> None:
    root = make_app("one-mount", "acme-crm", "gizmo")

    mount = build_agent(root).compiled.root.mounts[0]

    assert mount.config == {"api_key": {"$env": "CRM_API_KEY"}, "region": "us",
                            "max_results": 10}
    assert (mount.namespace, mount.mount_path, mount.file, mount.module) == (
        "crm", "extensions/crm", "agent/extensions/crm.py", "eve_agent.extensions.crm")
    assert (mount.package, mount.import_name, mount.version, mount.source_backed) == (
        "acme-crm", "acme_crm", "0.3.0", True)
    assert mount.config_schema is not None and mount.config_schema["required"] == ["api_key"]


def test_two_mounts_of_one_package_are_two_instances(make_app: MakeApp) -> None:
    root = make_app("two-mounts-one-package", "acme-crm")

    tree = build_agent(root).compiled.root

    configs = {m.namespace: m.config for m in tree.mounts}
    assert configs == {
        "company": {"api_key": {"$env": "COMPANY_CRM_KEY"}, "region": "us", "max_results": 3},
        "crm": {"api_key": {"$env": "CRM_API_KEY"}, "region": "eu", "max_results": 10},
    }
    assert [s.key for s in tree.states] == ["extensions/company:requests",
                                            "extensions/crm:requests"]
    assert "company__search" in names(tree.tools) and "crm__search" in names(tree.tools)
    routes = {c.name: (c.details["route"], c.source) for c in tree.channels}
    assert routes == {"company__webhook": ("/company/webhook", "root-override"),
                      "crm__webhook": ("/crm/webhook", "package")}
    moved = next(c for c in tree.channels if c.name == "company__webhook")
    assert moved.details["method"] == "POST"  # kept from the original by replace()
    assert moved.identity == "acme_crm:channels/webhook.py"


def test_a_route_claimed_twice_names_both(make_app: MakeApp) -> None:
    root = make_app("two-mounts-one-package", "acme-crm")
    (root / "agent" / "channels" / "company__webhook.py").unlink()

    errors = build_errors(root)

    assert errors == [
        "agent/extensions/crm.py: error mount/route-conflict: the channels `company__webhook` "
        "(from `agent/extensions/company.py`) and `crm__webhook` (from "
        "`agent/extensions/crm.py`) both claim `POST /crm/webhook`\n"
        "  hint: give one of them another route: override the channel in "
        "`agent/channels/crm__webhook.py` with `channel = original.replace(route=...)`, "
        "where `original` is the mounted package's channel (docs/consumer.md, \"Channel "
        "routes\")"
    ]


def test_flat_layout_uses_the_app_root_as_the_agent_folder(make_app: MakeApp) -> None:
    root = make_app("flat", "gizmo")

    compiled = build_agent(root).compiled

    assert compiled.agent_dir == "."
    assert names(compiled.root.tools) == ["gizmo__spin"]
    assert compiled.root.instructions[0].file == "instructions.md"
    assert compiled.root.mounts[0].file == "extensions/gizmo.py"


def test_an_installed_extension_is_found_on_sys_path(make_app: MakeApp, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "site" / "gizmo"
    copy_fixture_tree(FIXTURES / "extensions" / "gizmo", package)
    build_extension(package)
    monkeypatch.syspath_prepend(str(package / "build" / "eve"))
    root = make_app("installed")

    compiled = build_agent(root).compiled

    assert compiled.sys_path == []
    assert compiled.root.mounts[0].source_backed is False
    assert names(compiled.root.tools) == ["gizmo__spin"]


def test_flat_and_directory_mount_of_one_name_is_an_error(make_app: MakeApp) -> None:
    root = make_app("directory-mount", "acme-crm", "gizmo")
    shutil.copy(root / "agent" / "extensions" / "crm" / "extension.py",
                root / "agent" / "extensions" / "crm.py")

    errors = build_errors(root)

    assert len(errors) == 1
    assert errors[0].startswith(
        "agent/extensions/crm/extension.py: error mount/duplicate: `agent/extensions/crm.py` "
        "and `agent/extensions/crm/extension.py` both mount the namespace `crm`")


@pytest.mark.parametrize(("source", "expected"), [
    ("from gizmo import gizmo\n", "error mount/definition-missing: "
     "`extensions/gizmo.py` does not bind `mount`"),
    ("import json\nmount = json.loads('{}')\n", "error mount/package-unknown: "
     "`extensions/gizmo.py` imports no module that could be the extension it mounts"),
    ("from nowhere_pkg import nowhere_pkg\nmount = nowhere_pkg()\n",
     "error mount/package-not-found: `extensions/gizmo.py` mounts `nowhere_pkg`, which is "
     "neither an extension of this workspace nor installed"),
    ("from gizmo import gizmo\nmount = 42\n", "error mount/definition-wrong-kind: `mount` in "
     "`extensions/gizmo.py` is a int, not a mount of `gizmo`"),
    ("from gizmo import gizmo\nmount = gizmo(\n", "error load/syntax-error: invalid syntax"),
])
def test_mount_file_problems(make_app: MakeApp, source: str, expected: str) -> None:
    root = make_app("flat", "gizmo")
    mount_file = root / "extensions" / "gizmo.py"
    mount_file.write_text(source)

    errors = build_errors(root)

    assert len(errors) == 1
    assert errors[0].startswith("extensions/gizmo.py"), errors
    assert expected in errors[0]
    assert "Traceback" not in errors[0]


def test_an_invalid_mount_name_is_an_error(make_app: MakeApp) -> None:
    root = make_app("flat", "gizmo")
    (root / "extensions" / "gizmo.py").rename(root / "extensions" / "Gizmo.py")

    errors = build_errors(root)

    assert len(errors) == 1
    assert "error mount/namespace-invalid: the mount file `extensions/Gizmo.py` gives the " \
           "namespace `Gizmo`, which is not valid" in errors[0]


def test_state_keys_follow_the_logical_mount_path(make_app: MakeApp) -> None:
    root = make_app("directory-mount", "acme-crm", "gizmo")

    states = build_agent(root).compiled.root.states

    # a directory mount has the same logical path as a flat one: `extensions/crm`
    assert [(s.key, s.mount_path, s.name, s.package) for s in states] == [
        ("extensions/crm:requests", "extensions/crm", "requests", "acme-crm")]


def test_the_agents_own_subagent_holds_its_own_mounts(make_app: MakeApp) -> None:
    root = make_app("nested-mount", "acme-crm", "gizmo")

    compiled = build_agent(root).compiled

    research = find_tree(compiled, "research")
    assert names(research.tools) == ["gizmo__spin"]
    assert [(m.namespace, m.mount_path) for m in research.mounts] == [
        ("gizmo", "subagents/research/extensions/gizmo")]
    assert research.description == "Researches accounts"
