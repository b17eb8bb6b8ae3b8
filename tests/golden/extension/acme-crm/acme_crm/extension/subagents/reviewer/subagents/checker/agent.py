"""The checker subagent, nested in the reviewer."""

from __future__ import annotations

from eve_build.sdk import define_agent

agent = define_agent(description="Verifies billing-related CRM changes", model=None)
