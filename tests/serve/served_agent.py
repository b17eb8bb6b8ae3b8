"""An agent with every kind of route `eve serve` has, served by a real `eve serve`.

Channels: `POST /echo` reads `request.json()`, `POST /boom` raises. The session routes
run on the offline `test` model; `/mcp` is the agent's MCP server; `/.eve/health`.
Used by the admission tests (who may call) and the error-shape tests (how a refusal
or a failure reads).
"""

from __future__ import annotations

from pathlib import Path

from eve_build.consumer.build import build_agent
from tests.runtime.apps import make_app

CHANNEL = """\
from eve_build.sdk import define_channel

{body}

channel = define_channel(route="{route}", handle=handle, method="POST")
"""
FILES = {
    "channels/echo.py": CHANNEL.format(route="/echo", body=(
        "async def handle(request, ctx):\n    return {'got': await request.json()}")),
    "channels/boom.py": CHANNEL.format(route="/boom", body=(
        "def handle(request, ctx):\n    raise ValueError('the ledger is closed')")),
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream"}
MCP_INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "admission-test", "version": "1"}}}
SERVE_ENV = {"EVE_MODEL": "test"}


def make_served_agent(root: Path) -> Path:
    """The agent above, built (`eve build`) into `root`."""
    root.mkdir(parents=True, exist_ok=True)
    make_app(root, [], FILES)
    build_agent(root)
    return root
