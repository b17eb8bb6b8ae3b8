"""Serve the built agent: channels over HTTP, schedules on their cron (DESIGN section 9).

    from eve_build.serve import create_app

    app = create_app(Path("my-agent"))   # any ASGI server, or httpx.ASGITransport(app)

Needs the `serve` extra (`pip install 'eve-build[serve]'`): starlette and uvicorn.
Nothing here imports them until it is called, so `eve prompt` and `eve schedules`
work without it. See docs/serving.md.

Layer 6 (serve): may import `dev`, `mcp`, `session`, both layer-4 sides, the authored
layer, formats and the foundation; never `testing` or `cli`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from starlette.applications import Starlette


def create_app(root: Path | str, *, mcp: bool = False, approve: bool = False,
               **options: Any) -> Starlette:
    """The ASGI app serving the agent built in `root` (see `eve_build.serve.app.build_app`
    for the options: environ, channel_timeout, routes, lifespans, schedules, clock).

    `mcp=True` mounts the agent's MCP server at `/mcp` as `eve serve` does (it needs the
    `mcp` extra; `address` is then the host it listens on, for the admission policy);
    `admission` sets which requests every route admits (eve_build.serve.admission);
    `approve=True` (implies `mcp`) approves every call over `/mcp` of a tool that asks
    for approval, as `eve serve --approve` does.
    """
    from eve_build.serve.extra import require_serve_extra

    require_serve_extra()
    if mcp or approve:
        from eve_build.connections.sdk import require_sdk

        require_sdk("`/mcp`")
        from eve_build.serve.mcp_app import create_app_with_mcp

        return create_app_with_mcp(Path(root), approve=approve, **options)
    from eve_build.serve.app import build_app

    return build_app(Path(root), **options)


__all__ = ["create_app"]
