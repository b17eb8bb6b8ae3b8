"""Contact each `kind="mcp"` connection with the SDK's client (streamable HTTP, then SSE):
connect, list the tools, within a timeout. Whatever goes wrong is a Diagnostic naming
the connection file, and the row says what happened: `ok`, `unreachable`,
`unauthorized` (HTTP 401/403: the server answered) or `not-mcp`.

Messages are written here, never copied from the exception: an HTTP library may
echo a request (and its headers) in its errors.
"""

from __future__ import annotations

import asyncio
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from eve_build.connections.client import describe_failure, enter_client
from eve_build.connections.resolve import ResolvedConnection
from eve_build.diagnostics import Diagnostic

STATUS_BY_CODE = {"connection/unreachable": "unreachable",
                  "connection/auth-failed": "unauthorized", "connection/not-mcp": "not-mcp"}
"""A probe row's `status` for the diagnostic that ended it."""


@dataclass(frozen=True)
class ProbeResult:
    name: str
    reachable: bool
    tools: list[str] = field(default_factory=list)
    problem: Diagnostic | None = None
    transport: str | None = None  # "streamable-http" | "sse" once connected

    @property
    def status(self) -> str:
        return "ok" if self.problem is None else STATUS_BY_CODE.get(self.problem.code, "failed")

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "reachable": self.reachable, "transport": self.transport,
                "tools": self.tools,
                "error": self.problem.message if self.problem else None}


async def probe_connections(connections: list[ResolvedConnection], *,
                            timeout: float) -> dict[str, ProbeResult]:
    """Probe every MCP connection that resolved to an http(s) URL, all at once."""
    targets = [c for c in connections if c.kind == "mcp" and c.url
               and urlsplit(c.url).scheme in ("http", "https")]
    results = await asyncio.gather(*(probe_connection(c, timeout=timeout) for c in targets))
    return {(f"{c.subagent}/" if c.subagent else "") + c.name: r
            for c, r in zip(targets, results, strict=True)}


async def probe_connection(connection: ResolvedConnection, *,
                           timeout: float) -> ProbeResult:
    """Connect, list the tools, disconnect; a ProbeResult either way."""
    assert connection.url is not None
    statuses: list[int] = []  # every HTTP status seen: the SDK keeps them out of its errors
    failure: BaseException | None = None
    try:
        async with asyncio.timeout(timeout), AsyncExitStack() as stack:
            client, transport = await enter_client(
                stack, connection.url, connection.headers, timeout=timeout,
                statuses=statuses, read_timeout=timeout)
            listed = await client.list_tools()
            return ProbeResult(connection.name, True, sorted(t.name for t in listed.tools),
                               transport=transport)
    except TimeoutError:
        failure = None
    except Exception as exc:  # the SDK and the network raise many kinds; each is a diagnosis
        failure = exc
    problem = describe_failure(connection.name, connection.file, connection.url,
                               connection.headers, failure, statuses, timeout=timeout,
                               timeout_setting="--timeout")
    answered = problem.code != "connection/unreachable"
    return ProbeResult(connection.name, answered, problem=problem)
