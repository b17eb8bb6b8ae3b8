"""eve tools as LangChain tools, through `langchain_mcp_adapters`: `eve mcp` (stdio) or
the `/mcp` of `eve serve` / `eve dev` (streamable HTTP).

    eve build --path my-agent
    EVE=my-agent/.venv/bin/eve python langchain_mcp.py my-agent greet '{"name": "Ada"}'
    python langchain_mcp.py http://127.0.0.1:8000/mcp greet '{"name": "Ada"}'

Run it in LangChain's own environment: langchain-mcp-adapters needs the MCP SDK 1.x and
eve-build the 2.x, so the two never share a venv; over stdio the adapters start the
agent venv's `eve` (`EVE`, default `eve` on PATH). The stdio server sees only the
variables passed in `env` (here the whole environment): the values the mount files
read with `env(...)` must be there. The tools are LangChain `BaseTool`s: give them to
any LangChain agent (`bind_tools`, `create_agent(model, tools)`), or invoke one as
here. See docs/frameworks.md.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

from langchain_core.tools import BaseTool
from langchain_mcp_adapters.client import MultiServerMCPClient


def connection(where: str) -> dict[str, Any]:
    """An `/mcp` URL, or an agent folder that `eve mcp` serves over stdio."""
    if where.startswith(("http://", "https://")):
        return {"transport": "streamable_http", "url": where}
    return {"transport": "stdio", "command": os.environ.get("EVE", "eve"),
            "args": ["mcp", "--path", str(Path(where).resolve())], "env": dict(os.environ)}


async def load_tools(where: str) -> list[BaseTool]:
    client = MultiServerMCPClient({"eve": connection(where)})  # type: ignore[dict-item]
    return await client.get_tools()


async def call(where: str, tool: str, arguments: dict[str, Any]) -> Any:
    """Load the tools, then invoke one by its eve name."""
    tools = {t.name: t for t in await load_tools(where)}
    return await tools[tool].ainvoke(arguments)


if __name__ == "__main__":
    answer = asyncio.run(call(sys.argv[1], sys.argv[2], json.loads(sys.argv[3])))
    print(answer if isinstance(answer, str) else json.dumps(answer, default=str))
