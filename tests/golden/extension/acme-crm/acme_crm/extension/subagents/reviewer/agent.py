"""The reviewer subagent."""

from __future__ import annotations

from eve_build.sdk import define_agent

agent = define_agent(description="Reviews CRM changes", model=None)
