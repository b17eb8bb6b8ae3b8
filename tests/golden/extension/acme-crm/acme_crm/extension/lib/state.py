"""Durable per-mount state shared by the tools."""

from __future__ import annotations

from eve_build.sdk import define_state

requests = define_state("requests", lambda: 0)
"""How many CRM requests this mount has made."""
