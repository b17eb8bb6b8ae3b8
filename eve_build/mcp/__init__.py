"""The built agent as an MCP server (stdio and streamable HTTP), with the official SDK.

    from eve_build.mcp import serve_stdio
    serve_stdio(Path("my-agent"), approve=False)

Tools keep their `ns__` names and JSON Schemas, calls go through the same host as
`eve call` (hooks, approval, per-mount config), skills are resources
(`skill://crm__triage`); what a tool asks (`ctx.ask`, `ctx.sample`, `ctx.log`, numeric
progress) the client answers (interaction.py). See docs/mcp.md. The `mcp` SDK is the
`eve-build[mcp]` extra: `require_sdk()` turns its absence into a diagnostic that names it.

Layer 6 (serve, beside `dev` and `testing`): may import `session`, both layer-4 sides,
the authored layer, formats and the foundation; never `serve`, `dev`, `testing` or `cli`.
"""

from __future__ import annotations

from eve_build.connections.sdk import require_sdk

__all__ = ["require_sdk"]
