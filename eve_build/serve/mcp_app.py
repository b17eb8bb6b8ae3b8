"""`eve serve`'s app with the agent's MCP server mounted at `/mcp`.

Here rather than in `eve_build.mcp.http` because it builds the served app: `serve` sits
above `mcp` (docs/architecture.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from starlette.applications import Starlette

from eve_build.errors import EveBuildError
from eve_build.mcp.http import McpHttp, create_mcp_http
from eve_build.runtime.agent import Agent


def create_app_with_mcp(root: Path, *, approve: bool = False, address: str = "127.0.0.1",
                        environ: Mapping[str, str] | None = None, **options: Any) -> Starlette:
    """`eve_build.serve.create_app(root, ...)` with the agent's MCP server at `/mcp`
    (what `eve serve` runs when the MCP SDK is installed).

    The MCP server always serves the host's current generation, so `eve dev`'s swaps
    reach MCP clients too (a subscribed skill that a swap changes is announced); its
    session manager runs in the app's lifespan. `address` is
    the one the app listens on: the admission policy (`options["admission"]`, else
    derived from `address`) checks Host, Origin and content type of every route, `/mcp`
    included. `options` go to `build_app` as they are.
    """
    import os

    from eve_build.serve.admission import derive_admission
    from eve_build.serve.app import build_app

    if options.get("admission") is None:
        options["admission"] = derive_admission(address, environ=os.environ)

    mounted: list[McpHttp] = []
    lifespans = [*options.pop("lifespans", ()), lambda _app: mounted[0].lifespan()]
    app = build_app(root, environ=environ, lifespans=lifespans, **options)
    def current() -> Agent:
        generation = app.state.host.current
        if generation is None:  # `eve dev` before its first good build
            raise EveBuildError("the agent has no good build yet",
                                "fix the errors `eve dev` shows; the next good build is served")
        agent: Agent = generation.agent
        return agent

    mcp = create_mcp_http(current, root, approve=approve, host=address, admitted=True)
    mounted.append(mcp)
    app.state.host.on_swap.append(lambda _generation: mcp.subscriptions.changed())
    app.router.routes.extend(mcp.routes)  # routes are matched before the channels
    return app
