"""Calling tools: arguments, sync and async execute, progress, failures, approval."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest

from eve_build.errors import EveBuildError
from eve_build.runtime import Agent, ApprovalRequest
from tests.runtime.apps import mount_file

CRM = {"extensions/crm.py": mount_file("acme_crm", 'api_key="k"')}


@pytest.fixture
def crm(app: Callable[..., Path], load: Callable[..., Agent]) -> Agent:
    root = app(["acme-crm"], {
        **CRM,
        "tools/explode.py": """\
            from pydantic import BaseModel
            from eve_build.sdk import define_tool

            class Nothing(BaseModel):
                pass

            def execute(input, ctx):
                raise ValueError("the CRM is down for maintenance")

            tool = define_tool(description="Always fails.", input=Nothing, execute=execute)
            """,
    })
    return load(root)


def test_bad_arguments_fail_with_every_field_named(crm: Agent) -> None:
    result = crm.call_tool("crm__search", {"limit": "many"})
    assert result.status == "failed"
    assert result.error == ("invalid arguments: `query`: Field required; `limit`: Input should "
                            "be a valid integer, unable to parse string as an integer")
    assert result.trace == ()  # hooks never saw the invalid call


def test_arguments_must_be_an_object_with_string_keys(crm: Agent) -> None:
    result = crm.call_tool("crm__search", {1: "x"})  # type: ignore[dict-item]
    assert (result.status, result.error) == (
        "failed", "invalid arguments: they must be a JSON object with string keys")


def test_a_sync_tool_reports_progress_to_the_callback(crm: Agent) -> None:
    seen: list[str] = []
    result = crm.call_tool("crm__search", {"query": "  Ada   Lovelace "}, on_progress=seen.append)
    assert result.ok
    assert result.value["query"] == "ada lovelace"
    assert seen == ["searching eu for 'ada lovelace'"]
    assert result.progress == tuple(seen)


def test_an_async_tool_runs_and_reports_progress(crm: Agent) -> None:
    seen: list[str] = []
    result = crm.call_tool("crm__create_contact", {"name": "Ada", "email": "ada@x"},
                           approver=lambda _: True, on_progress=seen.append)
    assert (result.status, result.value["name"], result.value["created"]) == ("ok", "Ada", True)
    assert seen == ["creating contact Ada"]


def test_a_raising_tool_fails_with_its_message(crm: Agent) -> None:
    result = crm.call_tool("explode", {})
    assert (result.status, result.error) == ("failed", "the CRM is down for maintenance")
    assert result.identity == "agent:tools/explode.py"


def test_a_dynamic_tool_is_resolved_for_its_mount(crm: Agent) -> None:
    result = crm.call_tool("crm__lookup", {"record_id": "r-1"})
    assert result.value == {"record_id": "r-1", "region": "eu",
                            "url": "https://eu.crm.example.com/api/records/r-1"}


def test_always_asks_the_approver_every_time(crm: Agent) -> None:
    asked: list[ApprovalRequest] = []

    def approver(request: ApprovalRequest) -> bool:
        asked.append(request)
        return len(asked) != 2  # yes, no, yes

    statuses = [crm.call_tool("crm__create_contact", {"name": "A", "email": "a@x"},
                              approver=approver).status for _ in range(3)]
    assert statuses == ["ok", "refused", "ok"]
    assert [(r.tool, r.policy, r.mount) for r in asked] == [
        ("crm__create_contact", "always", "crm")] * 3
    assert asked[0].arguments == {"name": "A", "email": "a@x"}


def test_once_asks_only_the_first_time_in_a_session(crm: Agent) -> None:
    asked: list[str] = []

    def approver(request: ApprovalRequest) -> bool:
        asked.append(request.tool)
        return True

    first = crm.call_tool("crm__admin-reset", {}, approver=approver)
    second = crm.call_tool("crm__admin-reset", {})  # remembered: no approver needed
    assert (first.status, second.status, asked) == ("ok", "ok", ["crm__admin-reset"])
    assert crm.snapshot()["approvals"] == {"crm__admin-reset": True}


def test_once_remembers_a_refusal_too(crm: Agent) -> None:
    first = crm.call_tool("crm__admin-reset", {}, approver=lambda _: False)
    second = crm.call_tool("crm__admin-reset", {}, approver=lambda _: True)
    assert (first.status, first.error) == ("refused", "not approved")
    assert (second.status, second.error) == (
        "refused", "not approved earlier in this session (approval: once)")


def test_without_an_approver_a_call_that_needs_one_is_refused(crm: Agent) -> None:
    result = crm.call_tool("crm__create_contact", {"name": "A", "email": "a@x"})
    assert (result.status, result.error) == (
        "refused", "it needs approval (always) and no approver was given")
    assert result.value is None


def test_an_async_approver_is_awaited(crm: Agent) -> None:
    async def approver(request: ApprovalRequest) -> bool:
        return request.arguments["name"] == "Ada"

    ada = crm.call_tool("crm__create_contact", {"name": "Ada", "email": "a@x"}, approver=approver)
    bob = crm.call_tool("crm__create_contact", {"name": "Bob", "email": "b@x"}, approver=approver)
    assert (ada.status, bob.status) == ("ok", "refused")


def test_a_sync_call_inside_a_running_event_loop_says_to_await(crm: Agent) -> None:
    async def inside() -> None:
        crm.call_tool("crm__search", {"query": "ada"})

    with pytest.raises(EveBuildError, match="inside a running event loop") as caught:
        asyncio.run(inside())
    assert caught.value.hint == "await the async form instead (`acall_tool`, `afire`)"
