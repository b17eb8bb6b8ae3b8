"""Open an MCP client on one connection with the official SDK: streamable HTTP first, then
the older SSE transport when the server answered but not to streamable HTTP.

`enter_client` enters the client on an exit stack the caller owns (and must leave in
the same task: the SDK's transports hold task groups). Every HTTP status either
transport saw lands in `statuses`, because the SDK keeps them out of its errors;
`describe_failure` turns a failed attempt into a Diagnostic written here, never
copied from an exception, which may echo a request.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import AsyncExitStack
from typing import TYPE_CHECKING, Any

from eve_build.diagnostics import Diagnostic, Severity, error

if TYPE_CHECKING:
    import httpx2
    from mcp import Client

AUTH_STATUSES = (401, 403)
SSE_READ_TIMEOUT = 24 * 3600.0
"""Seconds an open SSE stream may stay silent (a held connection idles for long)."""


async def enter_client(stack: AsyncExitStack, url: str, headers: Mapping[str, str], *,
                       timeout: float, statuses: list[int], read_timeout: float | None
                       ) -> tuple[Client, str]:
    """The connected client and its transport (`streamable-http` or `sse`).

    `timeout` bounds connecting and each HTTP request; `read_timeout` each MCP request
    (None: the caller bounds them). Raises what the SDK raised when neither transport
    connects (or the first one failed for a reason SSE cannot fix: refused
    credentials, no answer at all).
    """
    import httpx2
    from mcp import Client
    from mcp.client.sse import sse_client
    from mcp.client.streamable_http import streamable_http_client

    async def record(response: httpx2.Response) -> None:
        statuses.append(response.status_code)

    def http_client(headers: dict[str, str] | None = None, timeout: Any = None,
                    auth: httpx2.Auth | None = None) -> httpx2.AsyncClient:
        return httpx2.AsyncClient(headers=headers, timeout=timeout, auth=auth,
                                  event_hooks={"response": [record]})

    limits = httpx2.Timeout(timeout, read=read_timeout if read_timeout else SSE_READ_TIMEOUT)
    http = await stack.enter_async_context(http_client(dict(headers), limits))
    try:
        client = Client(streamable_http_client(url, http_client=http),
                        read_timeout_seconds=read_timeout, cache=None)
        return await stack.enter_async_context(client), "streamable-http"
    except Exception as exc:  # the SDK and the network raise many kinds
        if not falls_back(exc, statuses):
            raise
    sse = sse_client(url, headers=dict(headers), timeout=timeout,
                     sse_read_timeout=SSE_READ_TIMEOUT, httpx_client_factory=http_client)
    client = Client(sse, read_timeout_seconds=read_timeout, cache=None)
    return await stack.enter_async_context(client), "sse"


def falls_back(exc: BaseException, statuses: list[int]) -> bool:
    """Whether an SSE attempt may succeed where streamable HTTP failed: the server
    answered, and not by refusing the credentials."""
    if any(s in AUTH_STATUSES for s in statuses):
        return False
    return not any(_is_network(c) or isinstance(c, TimeoutError) for c in walk_causes(exc))


def describe_failure(name: str, file: str, url: str, headers: Mapping[str, str],
                     exc: BaseException | None, statuses: list[int], *, timeout: float,
                     severity: Severity = Severity.ERROR, timeout_setting: str = ""
                     ) -> Diagnostic:
    """Why the connection `name` did not open: unreachable, unauthorized or not MCP.

    `exc` None means it did not answer within `timeout`; `timeout_setting` names what
    sets that timeout (`EVE_CONNECTION_TIMEOUT`), for the hint.
    """
    failures = [s for s in statuses if s >= 400]
    if exc is None:
        slow = (f"; if it is only slow to answer, raise `{timeout_setting}` (now {timeout:g} s)"
                if timeout_setting else "")
        code, what, hint = ("connection/unreachable", f"did not answer within {timeout:g} s",
                            f"check that the server runs and the URL is right{slow}")
    elif any(s in AUTH_STATUSES for s in failures):
        status = next(s for s in failures if s in AUTH_STATUSES)
        names = ", ".join(f"`{n}`" for n in sorted(headers))
        hint = (f"check the values the headers {names} get from the environment" if names else
                'the connection sends no headers: add `headers={"Authorization": env("...")}`')
        code, what = ("connection/auth-failed", "was refused: the server did not accept the "
                      f"credentials (HTTP {status}, unauthorized)")
    elif any(_is_network(c) for c in walk_causes(exc)):
        code, what, hint = ("connection/unreachable", f"cannot be reached at `{url}`",
                            "check that the server runs and the URL is right")
    else:
        where = (f"HTTP {failures[0]}" if failures else type(walk_causes(exc)[-1]).__name__)
        code, what, hint = ("connection/not-mcp",
                            f"did not answer as an MCP server ({where}) to streamable HTTP "
                            "or SSE",
                            "check that the URL is the server's MCP endpoint (often ending "
                            "in `/mcp`, or `/sse` for an SSE server)")
    found = error(code, file, f"the MCP connection `{name}` {what}", hint)
    return found if severity is Severity.ERROR else Diagnostic(
        file=found.file, line=None, code=code, message=found.message, hint=hint,
        severity=severity)


def walk_causes(exc: BaseException) -> list[BaseException]:
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
