"""Loading a compiled agent: mounts, env values, config, bindings, identities."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from eve_build.errors import DiagnosticsError
from eve_build.runtime import Agent, ToolNotFoundError
from eve_build.sdk import tool_result_from
from tests.runtime.apps import mount_file

TWO_CRMS = {
    "extensions/crm.py": mount_file("acme_crm", 'api_key=env("CRM_API_KEY"), region="us"'),
    "extensions/company.py": mount_file("acme_crm", 'api_key="k2", max_results=2'),
    # two mounts of one package both claim /crm/webhook: move one
    "channels/company__webhook.py": """\
        import dataclasses
        from acme_crm.extension.channels.webhook import channel as original
        channel = dataclasses.replace(original, route="/company/webhook")
        """,
}
ENV = {"CRM_API_KEY": "secret-key"}


@pytest.fixture
def crms(app: Callable[..., Path]) -> Path:
    return app(["acme-crm"], TWO_CRMS)


def test_two_mounts_of_one_package_read_their_own_config(
    crms: Path, load: Callable[..., Agent]
) -> None:
    agent = load(crms, environ=ENV)
    us = agent.call_tool("crm__search", {"query": "Ada", "limit": 7})
    eu = agent.call_tool("company__search", {"query": "Ada", "limit": 7})
    assert (us.value["region"], us.value["limit"]) == ("us", 7)
    assert (eu.value["region"], eu.value["limit"]) == ("eu", 2)


def test_mounts_keep_their_config_under_asyncio_concurrency(
    crms: Path, load: Callable[..., Agent]
) -> None:
    agent = load(crms, environ=ENV)
    names = ["crm__create_contact", "company__create_contact", "crm__lookup",
             "company__lookup", "crm__search", "company__search"] * 4

    async def all_at_once() -> list[str]:
        results = await asyncio.gather(*(
            agent.acall_tool(name, {"name": "A", "email": "a@x", "record_id": "r",
                                    "query": "q"}, approver=lambda _: True)
            for name in names))
        return [str(result.value["region"]) for result in results]

    regions = asyncio.run(all_at_once())
    assert regions == [("us" if name.startswith("crm") else "eu") for name in names]


def test_a_missing_env_value_fails_only_the_tools_of_that_mount(
    crms: Path, load: Callable[..., Agent]
) -> None:
    agent = load(crms, environ={})
    failed = agent.call_tool("crm__search", {"query": "Ada"})
    assert (failed.status, failed.error) == (
        "failed", "`crm__search` cannot run: the mount `agent/extensions/crm.py` is unavailable: "
        'config field `api_key` reads env("CRM_API_KEY"), which is not set')
    other = agent.call_tool("company__search", {"query": "Ada", "limit": 1})
    assert other.ok
    assert other.value["region"] == "eu"


def test_an_invalid_config_names_the_field_and_never_the_value(
    app: Callable[..., Path], load: Callable[..., Agent]
) -> None:
    root = app(["acme-crm"], {"extensions/crm.py": mount_file(
        "acme_crm", 'api_key="k", max_results=env("CRM_MAX")')})
    with pytest.raises(DiagnosticsError) as caught:
        load(root, environ={"CRM_MAX": "plenty-of-them"})
    [problem] = caught.value.diagnostics
    assert (problem.code, problem.file) == ("mount/config-invalid", "agent/extensions/crm.py")
    assert "`max_results`" in problem.message
    assert "plenty-of-them" not in problem.render()


def test_a_mount_file_that_raises_is_reported_with_its_file(
    app: Callable[..., Path], load: Callable[..., Agent]
) -> None:
    root = app(["gizmo"], {"extensions/gizmo.py": mount_file("gizmo")})
    (root / "agent/extensions/gizmo.py").write_text(
        "from gizmo import gizmo\n\ndef mount():\n    raise RuntimeError('no gizmo today')\n")
    with pytest.raises(DiagnosticsError) as caught:
        load(root)
    [problem] = caught.value.diagnostics
    assert (problem.code, problem.file) == ("runtime/mount-failed", "agent/extensions/gizmo.py")
    assert "RuntimeError: no gizmo today" in problem.message


def test_a_mount_factory_is_called_with_no_arguments(
    app: Callable[..., Path], load: Callable[..., Agent]
) -> None:
    root = app(["gizmo"], {"extensions/gizmo.py": "from gizmo import gizmo\n\nmount = gizmo\n"})
    assert load(root).call_tool("gizmo__spin", {"times": 2}).value == {"spins": 2}


def test_without_a_compiled_agent_the_error_says_to_run_eve_build(
    tmp_path: Path, load: Callable[..., Agent]
) -> None:
    with pytest.raises(DiagnosticsError) as caught:
        load(tmp_path)
    [problem] = caught.value.diagnostics
    assert problem.code == "runtime/compiled-missing"
    assert "`eve build`" in problem.hint


def test_results_map_back_to_the_package_definition(
    crms: Path, load: Callable[..., Agent]
) -> None:
    agent = load(crms, environ=ENV)
    result = agent.call_tool("company__search", {"query": "ada"})
    from acme_crm.tools import create_contact, search

    assert tool_result_from(result, search) == result.value
    assert tool_result_from(result, create_contact) is None


def test_an_unknown_tool_suggests_the_namespaced_names(
    crms: Path, load: Callable[..., Agent]
) -> None:
    agent = load(crms, environ=ENV)
    with pytest.raises(ToolNotFoundError) as caught:
        agent.call_tool("search", {"query": "ada"})
    assert caught.value.hint == "did you mean `company__search`, `crm__search`?"


def test_closing_gives_back_sys_path_and_the_agent_package(
    crms: Path, load: Callable[..., Agent]
) -> None:
    before = list(sys.path)
    agent = load(crms, environ=ENV)
    assert "eve_agent.extensions.crm" in sys.modules
    assert sys.path[0] == str((crms / "extensions/acme-crm/build/eve").resolve())
    agent.close()
    assert sys.path == before
    assert "eve_agent" not in sys.modules


def test_subagent_tools_run_bound_to_their_mount(
    crms: Path, load: Callable[..., Agent]
) -> None:
    agent = load(crms, environ=ENV)
    assert agent.tools("crm__reviewer") == ["score"]
    result = agent.call_tool("score", {"change": "merge billing"}, subagent="crm__reviewer")
    assert result.value == {"change": "merge billing", "score": 2, "risky": True}


def test_a_subagent_mount_derives_its_config_from_its_parent_mount(
    app: Callable[..., Path], load: Callable[..., Agent]
) -> None:
    agent = load(app(["mount-nested", "hook-rewrite"], {
        "extensions/hot.py": mount_file("mount_nested", 'flavour="spicy"'),
        "extensions/mild.py": mount_file("mount_nested"),
    }))
    hot = agent.call_tool("say", {"text": "hi"}, subagent="hot__helper")
    mild = agent.call_tool("say", {"text": "hi"}, subagent="mild__helper")
    assert hot.value == {"text": "hi-spicy", "flavour": "spicy", "tags": ["spice"]}
    assert mild.value == {"text": "hi-plain", "flavour": "plain", "tags": ["spice"]}
    assert [(e["mount"], e["outcome"]) for e in hot.trace] == [
        ("spice", "rewrite"), ("spice", "transform")]


@pytest.mark.parametrize("first_closed", ["older", "newer"])
def test_two_agents_closed_in_either_order_give_back_sys_path_and_the_agent_package(
    tmp_path: Path, first_closed: str
) -> None:
    """Two agents open in one process (two apps of `eve serve`, a pydantic-ai user's two
    toolsets): closing one leaves the other's `eve_agent` and sys.path entries alone, and
    once both are closed nothing of either is left, whatever the order."""
    from eve_build.runtime.loader import load_agent
    from tests.runtime.apps import compile_app, make_app

    roots = [make_app(tmp_path / name, ["acme-crm"], TWO_CRMS) for name in ("a", "b")]
    for root in roots:
        compile_app(root)
    before = list(sys.path)
    older = load_agent(roots[0], environ=ENV)
    newer = load_agent(roots[1], environ=ENV)
    try:
        closed, kept = (older, newer) if first_closed == "older" else (newer, older)
        kept_root = roots[1] if first_closed == "older" else roots[0]
        closed.close()
        assert sys.modules["eve_agent"].__path__ == [str((kept_root / "agent").resolve())]
        assert str((kept_root / "extensions/acme-crm/build/eve").resolve()) in sys.path
        assert kept.call_tool("crm__search", {"query": "Ada"}).ok
    finally:
        older.close()
        newer.close()
    assert "eve_agent" not in sys.modules
    assert sys.path == before


def test_one_app_loaded_twice_keeps_its_sys_path_until_both_close(
    crms: Path, load: Callable[..., Agent]
) -> None:
    before = list(sys.path)
    first, second = load(crms, environ=ENV), load(crms, environ=ENV)
    first.close()
    assert sys.path[0] == str((crms / "extensions/acme-crm/build/eve").resolve())
    assert second.call_tool("crm__search", {"query": "Ada"}).ok
    second.close()
    assert sys.path == before
    assert "eve_agent" not in sys.modules
