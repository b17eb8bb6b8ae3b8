"""Which file a tree's model came from, as a diagnostic names it (issue 28 item 5)."""

from __future__ import annotations

from eve_build.session.models import derive_agent_file, derive_model_choice


def test_the_file_of_each_kind_of_tree() -> None:
    assert derive_agent_file("eve_agent.agent", "agent") == "agent/agent.py"
    assert derive_agent_file("eve_agent.subagents.helper.agent", "agent") == (
        "agent/subagents/helper/agent.py")
    assert derive_agent_file("eve_agent.subagents.helper.agent", ".") == (
        "subagents/helper/agent.py")
    assert derive_agent_file("acme_crm.extension.subagents.reviewer.agent", "agent") == (
        "acme_crm/extension/subagents/reviewer/agent.py")
    assert derive_agent_file(None, "agent") == "agent/agent.py"


def test_a_subagents_own_model_names_its_own_file_and_an_inherited_one_the_roots() -> None:
    own = derive_model_choice(None, {}, "gpt-x", "test", agent_file="agent/agent.py",
                              own_file="agent/subagents/helper/agent.py")
    inherited = derive_model_choice(None, {}, None, "test", agent_file="agent/agent.py",
                                    own_file="agent/subagents/helper/agent.py")
    assert own.source == "`define_agent(model=...)` in `agent/subagents/helper/agent.py`"
    assert inherited.source == "`define_agent(model=...)` in `agent/agent.py`"
