"""Connections at run time: `eve connections [--json] [--probe]`.

`resolve.py` resolves static and dynamic connections with `env` values applied;
`probe.py` contacts each `kind="mcp"` server with the official SDK client. Header
values are kept for the request only: listings show header names, never values.

Layer 4, run side: may import `runtime`, the authored layer, formats and the
foundation; never `local` or `node`, never the build side.
"""

from __future__ import annotations

from eve_build.connections.resolve import ResolvedConnection, discover_connections

__all__ = ["ResolvedConnection", "discover_connections"]
