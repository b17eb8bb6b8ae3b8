"""Mounts inside a subagent that an extension contributes."""

from __future__ import annotations

import shutil

from eve_build.consumer.build import build_agent
from tests.consumer.conftest import MakeApp, build_errors, find_tree, names


def test_a_contributed_subagent_holds_its_own_mounts(make_app: MakeApp) -> None:
    root = make_app("nested-mount", "acme-crm", "gizmo")

    compiled = build_agent(root).compiled

    helper = find_tree(compiled, "crew__helper")
    assert helper.mount == "crew" and helper.description == "Does the CRM work for the crew"
    # the subagent's own tool keeps its name; its mounts are namespaced inside it
    assert names(helper.tools) == ["check", "crm__admin-reset", "crm__create_contact",
                                   "crm__lookup", "crm__search", "gizmo__spin"]
    assert [(m.namespace, m.mount_path, m.parent_mount, m.file) for m in helper.mounts] == [
        ("crm", "extensions/crew/subagents/helper/extensions/crm", "extensions/crew",
         "crew/extension/subagents/helper/extensions/crm.py"),
        ("gizmo", "extensions/crew/subagents/helper/extensions/gizmo", "extensions/crew",
         "crew/extension/subagents/helper/extensions/gizmo.py"),
    ]
    assert [s.key for s in helper.states] == [
        "extensions/crew/subagents/helper/extensions/crm:requests"]
    assert [s.path for s in helper.subagents] == ["crew__helper/crm__reviewer"]
    assert names(compiled.root.tools) == ["crew__plan"]  # the parent does not see them


def test_a_nested_mount_config_derives_from_the_parent_config(make_app: MakeApp) -> None:
    root = make_app("nested-mount", "acme-crm", "gizmo")

    helper = find_tree(build_agent(root).compiled, "crew__helper")

    crm = helper.mounts[0]
    # crew was mounted with crm_key=env("CREW_CRM_KEY"), region="us": the derived value
    # stays deferred, the plain one is copied
    assert crm.config == {"api_key": {"$env": "CREW_CRM_KEY"}, "region": "us",
                          "max_results": 10}
    assert crm.module == "crew.extension.subagents.helper.extensions.crm"


def test_a_nested_mount_of_a_missing_package_names_its_file(make_app: MakeApp) -> None:
    root = make_app("nested-mount", "acme-crm", "gizmo")
    shutil.rmtree(root / "packages" / "acme-crm")

    errors = build_errors(root)

    assert errors == [
        "crew/extension/subagents/helper/extensions/crm.py:8: error mount/package-not-found: "
        "`crew/extension/subagents/helper/extensions/crm.py` mounts `acme_crm`, which is "
        "neither an extension of this workspace nor installed\n"
        "  hint: install the extension that provides `acme_crm` (`uv add <package>`), or add "
        "its source folder to `[tool.uv.workspace].members`"
    ]
