"""Precedence: agent-root qualified file > directory-mount override > package."""

from __future__ import annotations

from eve_build.consumer.build import build_agent
from eve_build.sdk import Tool, tool_result_from
from eve_build.sdk.mount import ToolResult
from tests.consumer.conftest import MakeApp, build_errors, names


def test_directory_mount_overrides_disables_and_adds(make_app: MakeApp) -> None:
    root = make_app("directory-mount", "acme-crm", "gizmo")

    result = build_agent(root)
    tree = result.compiled.root

    assert names(tree.tools) == ["crm__admin-reset", "crm__lookup", "crm__search",
                                 "gizmo__spin"]  # create_contact disabled
    search = next(t for t in tree.tools if t.name == "crm__search")
    assert search.source == "directory-override"
    assert search.module == "eve_agent.extensions.crm.tools.search"
    assert search.details["approval"] == "always"
    assert search.identity == "acme_crm:tools/search.py"  # the original's, not the file's
    assert [i.file for i in tree.instructions] == [
        "agent/instructions.md", "acme_crm/extension/instructions.md",
        "agent/extensions/crm/instructions.md", "gizmo/extension/instructions.md"]


def test_hooks_run_agent_first_then_mounts_by_namespace(make_app: MakeApp) -> None:
    root = make_app("directory-mount", "acme-crm", "gizmo")

    hooks = build_agent(root).compiled.root.hooks

    assert [(h.mount, h.name, h.source) for h in hooks] == [
        (None, "first", "agent"),
        ("crm", "audit", "package"),
        ("crm", "auth/load_profile", "package"),
        ("crm", "trace", "directory-override"),
        ("gizmo", "guard", "package"),
    ]


def test_an_override_of_a_name_the_extension_lacks_is_a_warning(make_app: MakeApp) -> None:
    root = make_app("directory-mount", "acme-crm", "gizmo")

    warnings = [d.render() for d in build_agent(root).warnings]

    assert warnings == [
        "agent/extensions/crm/tools/archive.py:7: warning mount/override-unknown: "
        "`agent/extensions/crm/tools/archive.py` overrides the tool `archive` of the mount "
        "`crm`, but `acme-crm` contributes no tool of that name; it is ignored\n"
        "  hint: the tools of `crm` are: `admin-reset`, `create_contact`, `lookup`, `search`"
    ]


def test_the_agent_root_override_wins_over_the_directory_one(make_app: MakeApp) -> None:
    root = make_app("precedence", "acme-crm")

    tree = build_agent(root).compiled.root

    assert names(tree.tools) == ["crm__admin-reset", "crm__create_contact", "crm__search"]
    search = next(t for t in tree.tools if t.name == "crm__search")
    assert (search.source, search.file, search.module) == (
        "root-override", "agent/tools/crm__search.py", "eve_agent.tools.crm__search")
    assert search.details["description"] == "Search (agent-root override)."
    assert search.details["inputSchema"]["required"] == ["text"]
    assert search.identity == "acme_crm:tools/search.py"
    assert (search.mount, search.mount_path, search.local_name) == (
        "crm", "extensions/crm", "search")


def test_without_the_root_override_the_directory_one_applies(make_app: MakeApp) -> None:
    root = make_app("precedence", "acme-crm")
    (root / "agent" / "tools" / "crm__search.py").unlink()

    tree = build_agent(root).compiled.root

    search = next(t for t in tree.tools if t.name == "crm__search")
    assert search.source == "directory-override"
    assert search.details["description"] == "Search (directory override)."


def test_a_root_override_of_an_unmounted_namespace_is_an_error(make_app: MakeApp) -> None:
    root = make_app("precedence", "acme-crm")
    (root / "agent" / "tools" / "erp__search.py").write_text(
        "from eve_build.sdk import disable_tool\ntool = disable_tool()\n")

    errors = build_errors(root)

    assert errors == [
        "agent/tools/erp__search.py: error agent/override-namespace-unknown: "
        "`agent/tools/erp__search.py` is named like an override of `erp__search`, but nothing "
        "is mounted under the namespace `erp`\n"
        "  hint: mount it in `agent/extensions/erp.py`, or rename the file: `__` is reserved "
        "as the mount separator"
    ]


def test_disable_tool_outside_the_tools_slot_is_the_wrong_kind(make_app: MakeApp) -> None:
    root = make_app("precedence", "acme-crm")
    (root / "agent" / "channels").mkdir()
    (root / "agent" / "channels" / "crm__webhook.py").write_text(
        "from eve_build.sdk import disable_tool\nchannel = disable_tool()\n")

    errors = build_errors(root)

    assert len(errors) == 1
    assert errors[0].startswith("agent/channels/crm__webhook.py:2: error "
                                "load/definition-wrong-kind: `channel` is disable_tool()")


def test_a_namespaced_result_maps_back_to_the_original_definition(make_app: MakeApp) -> None:
    root = make_app("directory-mount", "acme-crm", "gizmo")
    search = next(t for t in build_agent(root).compiled.root.tools if t.name == "crm__search")
    original = Tool(description="search", identity="acme_crm:tools/search.py")
    other = Tool(description="other", identity="acme_crm:tools/lookup.py")
    result = ToolResult(name=search.name, status="ok", details=[1], identity=search.identity)

    assert tool_result_from(result, original) == [1]
    assert tool_result_from(result, other) is None
