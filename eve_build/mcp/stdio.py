"""`eve mcp`: the built agent as an MCP server over stdio.

stdout carries nothing but the protocol: while the SDK's stdio transport serves, it
points file descriptor 1 at stderr, so a tool's stray `print` or a child process
cannot corrupt the stream; logs go to stderr.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from eve_build.connections.sdk import require_sdk
from eve_build.host import load_agent
from eve_build.runtime.loopwatch import run_watched


def serve_stdio(app_root: Path, *, subagent: str | None = None, approve: bool = False,
                environ: Mapping[str, str] | None = None, extensions: Sequence[Path] = ()
                ) -> None:
    """Load the agent and serve it on stdin/stdout until the client closes the stream
    (EOF; a closed stdin returns at once).

    Local extensions load as for `eve call` (`extensions` are the `-e` paths); their
    tools are MCP tools and their commands MCP prompts.

    Raises DiagnosticsError (the SDK missing, the agent not loading) or
    ToolNotFoundError (an unknown subagent) before anything is served.
    """
    require_sdk("`eve mcp`")
    if not stdin_open():  # `eve mcp <&-`: no client can ever ask anything: as at EOF
        return
    import anyio
    from mcp.server.stdio import stdio_server

    from eve_build.mcp.server import create_mcp_server

    with load_agent(app_root, environ=environ, extensions=extensions) as agent:
        server = create_mcp_server(agent, app_root, subagent=subagent, approve=approve)

        async def run() -> None:
            async with stdio_server() as (read_stream, write_stream):
                await server.run(read_stream, write_stream,
                                 server.create_initialization_options())

        anyio.run(run_watched, run)  # a watchdog names what blocks the loop (loopwatch)


def stdin_open() -> bool:
    """Whether there is a stdin to read (a closed fd 0 is an input that already ended)."""
    if sys.stdin is None:
        return False
    try:
        os.fstat(0)
    except OSError:
        return False
    return True
