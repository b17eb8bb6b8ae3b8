"""The CRM's MCP server."""

from __future__ import annotations

from eve_build.sdk import define_connection, env

connection = define_connection(
    url="https://crm.example.com/mcp",
    kind="mcp",
    headers={"Authorization": env("CRM_API_KEY")},
)
