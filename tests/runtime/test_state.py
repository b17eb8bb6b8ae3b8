"""State per mount, session snapshots, and the migration of package-prefixed keys."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

import pytest

from eve_build.errors import DiagnosticsError
from eve_build.formats.compiled import CompiledMount, CompiledState
from eve_build.runtime import Agent, migrate_snapshot
from tests.runtime.apps import mount_file

TWO_CRMS = {
    "extensions/crm.py": mount_file("acme_crm", 'api_key="k1"'),
    "extensions/company.py": mount_file("acme_crm", 'api_key="k2"'),
    "channels/company__webhook.py": """\
        import dataclasses
        from acme_crm.extension.channels.webhook import channel as original
        channel = dataclasses.replace(original, route="/company/webhook")
        """,
}


def mount(namespace: str, package: str = "acme-crm") -> CompiledMount:
    return CompiledMount.model_validate({
        "namespace": namespace, "mountPath": f"extensions/{namespace}",
        "file": f"agent/extensions/{namespace}.py",
        "module": f"eve_agent.extensions.{namespace}", "package": package,
        "import": package.replace("-", "_"), "version": "1", "builtWithEve": "0.1.0",
        "requires": {}, "sourceBacked": False, "config": {}, "configSchema": None,
    })


def state(namespace: str, name: str = "requests", package: str = "acme-crm") -> CompiledState:
    return CompiledState.model_validate({
        "key": f"extensions/{namespace}:{name}", "mountPath": f"extensions/{namespace}",
        "name": name, "package": package,
    })


def test_state_is_kept_per_mount_and_survives_a_snapshot(
    app: Callable[..., Path], load: Callable[..., Agent]
) -> None:
    root = app(["acme-crm"], TWO_CRMS)
    agent = load(root)
    for name in ["crm__search", "crm__search", "company__search"]:
        agent.call_tool(name, {"query": "ada"})
    snapshot = agent.snapshot()
    assert snapshot["state"] == {"extensions/company:requests": 1, "extensions/crm:requests": 2}
    again = load(root, snapshot=snapshot)
    assert again.call_tool("crm__search", {"query": "ada"}).value["requests"] == 3
    assert again.state("extensions/company:requests") == 1


def test_an_old_key_moves_to_the_one_mount_that_defines_it() -> None:
    old = {"state": {"acme-crm.requests": 7, "greeting": "hi"}}
    migrated, warnings = migrate_snapshot(old, [mount("crm"), mount("gizmo", "gizmo")],
                                          [state("crm")])
    assert migrated == {"formatVersion": 1, "approvals": {},
                        "state": {"greeting": "hi", "extensions/crm:requests": 7}}
    assert warnings == []


def test_an_old_key_no_mount_defines_is_dropped_with_a_warning() -> None:
    old = {"state": {"acme-crm.requests": 7, "old-ext.cache": [1]}}
    migrated, warnings = migrate_snapshot(old, [mount("crm")], [state("crm", "other")])
    assert migrated["state"] == {}
    assert [(w.code, w.message) for w in warnings] == [
        ("state/key-dropped",
         "`acme-crm.requests` was dropped: no mount of `acme-crm` defines the state `requests`"),
        ("state/key-dropped",
         "`old-ext.cache` was dropped: no mount of `old-ext` defines the state `cache`"),
    ]


def test_an_old_key_several_mounts_define_rejects_the_whole_migration() -> None:
    old = {"state": {"acme-crm.requests": 7, "gizmo.spins": 1}}
    with pytest.raises(DiagnosticsError) as caught:
        migrate_snapshot(old, [mount("crm"), mount("company"), mount("gizmo", "gizmo")],
                         [state("crm"), state("company"), state("gizmo", "spins", "gizmo")])
    [problem] = caught.value.diagnostics
    assert problem.code == "state/key-ambiguous"
    assert problem.message == (
        "`acme-crm.requests` cannot be moved: 2 mounts of `acme-crm` define the state "
        "`requests` (`extensions/company:requests`, `extensions/crm:requests`)")
    assert old == {"state": {"acme-crm.requests": 7, "gizmo.spins": 1}}  # untouched


def test_a_current_key_wins_over_an_old_one() -> None:
    old = {"state": {"acme-crm.requests": 7, "extensions/crm:requests": 9}}
    migrated, warnings = migrate_snapshot(old, [mount("crm")], [state("crm")])
    assert migrated["state"] == {"extensions/crm:requests": 9}
    assert [w.message for w in warnings] == [
        "`acme-crm.requests` was dropped: `extensions/crm:requests` already holds this state"]


def test_package_names_with_dots_are_matched_by_the_longest_known_prefix() -> None:
    old = {"state": {"acme.crm.last.query": "ada"}}
    migrated, _ = migrate_snapshot(old, [mount("crm", "acme.crm")],
                                   [state("crm", "last.query", "acme.crm")])
    assert migrated["state"] == {"extensions/crm:last.query": "ada"}


def test_loading_a_snapshot_logs_the_keys_it_drops(
    app: Callable[..., Path], load: Callable[..., Agent], caplog: pytest.LogCaptureFixture,
) -> None:
    root = app(["acme-crm"], {"extensions/crm.py": mount_file("acme_crm", 'api_key="k"')})
    with caplog.at_level(logging.WARNING, logger="eve_build.runtime"):
        agent = load(root, snapshot={"state": {"acme-crm.requests": 4, "acme-crm.gone": 1}})
    assert agent.call_tool("crm__search", {"query": "ada"}).value["requests"] == 5
    assert caplog.messages == [
        "`acme-crm.gone` was dropped: no mount of `acme-crm` defines the state `gone`"]


def test_loading_an_ambiguous_snapshot_changes_nothing(
    app: Callable[..., Path], load: Callable[..., Agent]
) -> None:
    agent = load(app(["acme-crm"], TWO_CRMS))
    agent.call_tool("crm__search", {"query": "ada"})
    before = agent.snapshot()
    with pytest.raises(DiagnosticsError, match="cannot migrate the session snapshot"):
        agent.load_snapshot({"state": {"acme-crm.requests": 40}})
    assert agent.snapshot() == before


def test_a_snapshot_that_is_not_one_is_rejected() -> None:
    with pytest.raises(DiagnosticsError) as caught:
        migrate_snapshot({"state": ["not", "an", "object"]}, [], [])
    assert caught.value.diagnostics[0].message == "`state` is not a JSON object"


AGENT_STATE = {
    **{"extensions/crm.py": mount_file("acme_crm", 'api_key="k"')},
    "tools/note.py": """\
        from pydantic import BaseModel
        from eve_build.sdk import define_state, define_tool

        notes = define_state("notes.count", lambda: 0)

        class Nothing(BaseModel):
            pass

        def execute(input, ctx):
            return {"count": notes.update(lambda n: n + 1)}

        tool = define_tool(description="Counts notes.", input=Nothing, execute=execute)
        """,
}


def test_the_agents_own_state_is_compiled_and_kept_by_a_snapshot(
    app: Callable[..., Path], load: Callable[..., Agent]
) -> None:
    root = app(["acme-crm"], AGENT_STATE)
    agent = load(root, snapshot={"state": {"notes.count": 4, "acme-crm.requests": 2}})

    assert [(s.key, s.mount_path, s.name, s.package) for s in agent.compiled.root.states] == [
        ("notes.count", "", "notes.count", ""),
        ("extensions/crm:requests", "extensions/crm", "requests", "acme-crm")]
    assert agent.call_tool("note", {}).value == {"count": 5}  # not taken for a package key
    assert agent.state("extensions/crm:requests") == 2
