"""eve tools in the OpenAI Agents SDK, through `eve mcp` (stdio) and `agents.mcp`.

    eve build --path my-agent
    OPENAI_API_KEY=... python docs/examples/openai_agents_mcp.py my-agent "Find Ada in the CRM"

The SDK starts `eve mcp` itself. An MCP stdio server gets only a few variables of your
environment (HOME, PATH, ...) unless `env` names them: pass the values the agent's mount
files read with `env(...)` (here the whole environment). See docs/frameworks.md.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Mapping
from pathlib import Path

from agents import Agent, Model, Runner
from agents.mcp import MCPServerStdio


def eve_mcp(app: Path, env: Mapping[str, str]) -> MCPServerStdio:
    """`eve mcp --path APP`, run by this interpreter (the venv eve-build is installed in)."""
    return MCPServerStdio(
        params={"command": sys.executable,
                "args": ["-m", "eve_build", "mcp", "--path", str(app.resolve())],
                "env": dict(env)},
        name="eve", cache_tools_list=True, client_session_timeout_seconds=60)


async def run(app: Path, prompt: str, model: Model | str = "gpt-4.1-mini",
              env: Mapping[str, str] | None = None) -> str:
    """One run of `prompt` with the eve agent at `app`'s tools."""
    async with eve_mcp(app, os.environ if env is None else env) as server:
        agent = Agent(name="assistant", instructions="Use the tools to answer.",
                      mcp_servers=[server], model=model)
        result = await Runner.run(agent, prompt)
        return str(result.final_output)


if __name__ == "__main__":
    print(asyncio.run(run(Path(sys.argv[1]), sys.argv[2])))
