"""An MCP server written with the official SDK, run as a subprocess by the tests:

    python -m tests.connections.remote_server PORT streamable-http|sse

It listens on 127.0.0.1:PORT, answers only `Authorization: Bearer $REMOTE_TOKEN`, and
exits by itself after REMOTE_LIFETIME seconds (60 by default), so it never outlives a
test run.
"""

from __future__ import annotations

import asyncio
import os
import socket
import sys
import threading

import uvicorn
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send


class Sum(BaseModel):
    total: int


def create_server() -> MCPServer:
    server = MCPServer("remote")

    @server.tool()
    def add(a: int, b: int) -> Sum:
        """Add two numbers."""
        return Sum(total=a + b)

    @server.tool(structured_output=False)
    def echo(text: str) -> str:
        """Answer the text given (as text content only)."""
        return text

    @server.tool()
    def refuse(why: str = "no reason") -> str:
        """Always answers an error."""
        raise ToolError(f"refused: {why}")

    @server.tool()
    async def count(steps: int, ctx: Context) -> str:
        """Report progress, then answer."""
        for step in range(1, steps + 1):
            await ctx.report_progress(step, steps, f"step {step}")
        return f"counted {steps}"

    @server.tool()
    async def wait(seconds: float) -> str:
        """Sleep, then answer."""
        await asyncio.sleep(seconds)
        return "waited"

    @server.tool(name="get.version")
    def version() -> str:
        """A name model providers refuse (it has a dot)."""
        return "1"

    return server


class RequireToken:
    """A pure ASGI middleware (Starlette's BaseHTTPMiddleware breaks SSE streams)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = dict(scope.get("headers", []))
        wanted = f"Bearer {os.environ['REMOTE_TOKEN']}".encode()
        if scope["type"] == "http" and headers.get(b"authorization") != wanted:
            await PlainTextResponse("unauthorized", status_code=401)(scope, receive, send)
            return
        await self.app(scope, receive, send)


def main() -> None:
    where, transport = sys.argv[1], sys.argv[2]  # a port, or `fd:N`: a listening socket
    server = create_server()
    app = server.sse_app() if transport == "sse" else server.streamable_http_app()
    app.add_middleware(RequireToken)
    lifetime = float(os.environ.get("REMOTE_LIFETIME", "60"))
    threading.Timer(lifetime, os._exit, (0,)).start()
    if where.startswith("fd:"):  # bound to port 0 by the test, which read the port back
        sock = socket.socket(fileno=int(where[3:]))  # its family read from the socket
        uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])
    else:
        uvicorn.run(app, host="127.0.0.1", port=int(where), log_level="warning")


if __name__ == "__main__":
    main()
