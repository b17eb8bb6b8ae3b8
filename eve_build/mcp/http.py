"""The same MCP server over the streamable HTTP transport, as an ASGI app (`eve serve`'s
app with it mounted at `/mcp` is `eve_build.serve.mcp_app.create_app_with_mcp`).

`create_mcp_http(agent, app_root)` gives the app (serving `path`, `/mcp` by default)
and the lifespan its session manager needs. Run alone, `app` carries that lifespan
itself; mounted inside another app (`eve serve`), add `routes` to it and enter
`lifespan()` in its lifespan, because Starlette does not run a mounted app's lifespan.
Run alone, loopback hosts get the SDK's DNS-rebinding protection (Host and Origin
checked); inside `eve serve` the app's admission policy (eve_build.serve.admission)
checks every route, `/mcp` included, so the SDK's own check is off there.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.routing import BaseRoute, Route

from eve_build.mcp.prompts import CommandSource
from eve_build.mcp.resources import SkillSubscriptions
from eve_build.mcp.server import create_mcp_server
from eve_build.runtime.agent import Agent

MCP_PATH = "/mcp"


@dataclass(frozen=True)
class McpHttp:
    app: Starlette
    routes: list[BaseRoute]
    lifespan: Callable[[], AbstractAsyncContextManager[Any]]
    subscriptions: SkillSubscriptions  # call `changed()` after a generation swap


def create_mcp_http(agent: Agent | Callable[[], Agent], app_root: Path, *,
                    subagent: str | None = None, approve: bool = False, path: str = MCP_PATH,
                    host: str = "127.0.0.1", admitted: bool = False,
                    commands: CommandSource | None = None) -> McpHttp:
    """The agent's MCP server as a streamable HTTP ASGI app at `path`; `admitted`: the
    app it is mounted in checks Host and Origin (the SDK then does not)."""
    from mcp.server.transport_security import TransportSecuritySettings

    subscriptions = SkillSubscriptions()
    server = create_mcp_server(agent, app_root, subagent=subagent, approve=approve,
                               commands=commands, subscriptions=subscriptions)
    security = TransportSecuritySettings(enable_dns_rebinding_protection=False) \
        if admitted else None
    app = server.streamable_http_app(streamable_http_path=path, host=host,
                                     transport_security=security)
    routes = list(app.routes)
    # `path/` is served too, rather than redirected: starlette builds its slash redirects
    # from the Host header, so a client could be sent anywhere (issue 23, item 8)
    routes += [Route(f"{route.path}/", route.endpoint, methods=route.methods)
               for route in app.routes if isinstance(route, Route) and route.path == path]
    app.router.routes[:] = routes
    app.router.redirect_slashes = False
    return McpHttp(app=app, routes=routes, lifespan=server.session_manager.run,
                   subscriptions=subscriptions)


def __getattr__(name: str) -> Any:
    """`eve_build.mcp.http.create_app_with_mcp` (docs/mcp.md) still answers: it lives in
    `eve_build.serve.mcp_app` (it builds the served app), fetched by name so that this
    package never imports `serve`."""
    if name == "create_app_with_mcp":
        import importlib

        return importlib.import_module("eve_build.serve.mcp_app").create_app_with_mcp
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
