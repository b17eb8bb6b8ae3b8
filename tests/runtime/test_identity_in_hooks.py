"""`tool_result_from(event.result, search)` inside an `action.result` hook: the event carries
the identity of the tool's original definition, so the mounted `crm__search` is recognised."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from eve_build.runtime import Agent
from tests.runtime.apps import mount_file

TAG_SEARCH = """\
from acme_crm.tools import search
from eve_build.sdk import define_hook, tool_result_from


def tag(event, ctx):
    value = tool_result_from(event.result, search)
    if value is None:
        return None
    return {**value, "recognised": event.identity}


hook = define_hook(events={"action.result": tag})
"""


def test_an_action_result_hook_recognises_the_mounted_tool(
    app: Callable[..., Path], load: Callable[..., Agent]
) -> None:
    root = app(["acme-crm", "gizmo"], {
        "extensions/crm.py": mount_file("acme_crm", 'api_key="k"'),
        "extensions/gizmo.py": mount_file("gizmo"),
        "hooks/tag.py": TAG_SEARCH,
    })
    agent = load(root)

    searched = agent.call_tool("crm__search", {"query": "ada"})
    spun = agent.call_tool("gizmo__spin", {"times": 2})

    assert searched.ok, searched.error
    assert searched.value["recognised"] == "acme_crm:tools/search.py"
    assert spun.value == {"spins": 2}  # another tool's result is not taken for search
