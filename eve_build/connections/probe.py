"""Contact each `kind="mcp"` connection with the SDK's streamable HTTP client: connect,
list the tools, within a timeout. Whatever goes wrong is a Diagnostic naming the
connection file: unreachable, refused credentials, or not an MCP server.

Messages are written here, never copied from the exception: an HTTP library may
echo a request (and its headers) in its errors.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from eve_build.connections.resolve import ResolvedConnection
from eve_build.diagnostics import Diagnostic, error

AUTH_STATUSES = (401, 403)


@dataclass(frozen=True)
class ProbeResult:
    name: str
    reachable: bool
    tools: list[str] = field(default_factory=list)
    problem: Diagnostic | None = None

    def to_json(self) -> dict[str, Any]:
        return {"reachable": self.reachable, "tools": self.tools,
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
    statuses: list[int] = []  # every HTTP status seen: the SDK keeps them out of its errors
    try:
        async with asyncio.timeout(timeout):
            tools = await _list_tools(connection, timeout, statuses)
    except TimeoutError:
        return _failed(connection, "connection/unreachable",
                       f"did not answer within {timeout:g} s",
                       "check that the server runs and the URL is right")
    except Exception as exc:  # the SDK and the network raise many kinds; each is a diagnosis
        return _diagnose(connection, exc, statuses)
    return ProbeResult(connection.name, True, sorted(tools))


async def _list_tools(connection: ResolvedConnection, timeout: float,
                      statuses: list[int]) -> list[str]:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async def record(response: httpx2.Response) -> None:
        statuses.append(response.status_code)

    assert connection.url is not None
    async with httpx2.AsyncClient(headers=dict(connection.headers), timeout=timeout,
                                  event_hooks={"response": [record]}) as http:
        transport = streamable_http_client(connection.url, http_client=http)
        async with Client(transport, read_timeout_seconds=timeout, cache=None) as client:
            listed = await client.list_tools()
    return [tool.name for tool in listed.tools]


def _diagnose(connection: ResolvedConnection, exc: BaseException,
              seen: list[int]) -> ProbeResult:
    causes = list(_walk(exc))
    statuses = [s for s in seen if s >= 400]
    if any(s in AUTH_STATUSES for s in statuses):
        status = next(s for s in statuses if s in AUTH_STATUSES)
        names = ", ".join(f"`{n}`" for n in sorted(connection.headers))
        hint = (f"check the values the headers {names} get from the environment" if names else
                'the connection sends no headers: add `headers={"Authorization": env("...")}`')
        return _failed(connection, "connection/auth-failed",
                       f"was refused: the server did not accept the credentials (HTTP {status})",
                       hint)
    if any(_is_network(c) for c in causes):
        return _failed(connection, "connection/unreachable",
                       f"cannot be reached at `{connection.url}`",
                       "check that the server runs and the URL is right")
    where = f" (HTTP {statuses[0]})" if statuses else f" ({type(causes[-1]).__name__})"
    return _failed(connection, "connection/not-mcp",
                   f"did not answer as an MCP server{where}",
                   "check that the URL is the server's MCP endpoint (often ending in `/mcp`)")


def _failed(connection: ResolvedConnection, code: str, what: str, hint: str) -> ProbeResult:
    message = f"the MCP connection `{connection.name}` {what}"
    return ProbeResult(connection.name, False, problem=error(code, connection.file, message,
                                                             hint))


def _walk(exc: BaseException) -> list[BaseException]:
    """The exception, the ones grouped in it and their causes, depth first."""
    seen: list[BaseException] = []
    stack = [exc]
    while stack:
        current = stack.pop()
        if current in seen:
            continue
        seen.append(current)
        if isinstance(current, BaseExceptionGroup):
            stack.extend(current.exceptions)
        stack.extend(e for e in (current.__cause__, current.__context__) if e is not None)
    return seen


def _is_network(exc: BaseException) -> bool:
    names = {cls.__name__ for cls in type(exc).__mro__}
    return bool(names & {"ConnectError", "ConnectTimeout", "OSError", "ConnectionError",
                         "UnsupportedProtocol", "InvalidURL"})
