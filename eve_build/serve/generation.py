"""Generations: one loaded agent with its routes, and the host that swaps them.

`eve serve` loads one generation; `eve dev` loads another after every good build
and swaps it in. A request is dispatched to the generation that is current when
it arrives and finishes there, so a swap drops nothing in flight. Retired
generations are closed when the server stops, newest first: each one's module
scope was installed over the previous one's, so they unwind in that order.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.routing import BaseRoute, Route, Router
from starlette.types import Receive, Scope, Send

from eve_build.diagnostics import Diagnostic, error
from eve_build.errors import DiagnosticsError
from eve_build.host import load_agent
from eve_build.local.context import LocalSession
from eve_build.runtime.agent import Agent
from eve_build.runtime.loader import read_compiled_agent
from eve_build.runtime.trace import logger
from eve_build.runtime.workers import shared_pool
from eve_build.serve.answers import error_response
from eve_build.serve.channels import ChannelEndpoint
from eve_build.serve.contributions import BoundContribution, find_bound
from eve_build.serve.request import CHANNEL_TIMEOUT


@dataclass
class Generation:
    """One loaded agent and what it serves."""

    number: int
    agent: Agent
    channels: list[ChannelEndpoint]
    schedules: list[BoundContribution]
    router: Router = field(init=False)
    static: dict[str, Route] = field(init=False)
    in_flight: int = 0

    def __post_init__(self) -> None:
        routes: list[BaseRoute] = []
        found: list[Diagnostic] = []
        for endpoint in self.channels:
            try:
                routes.append(Route(endpoint.route, endpoint.__call__, methods=[endpoint.method]))
            except (ValueError, AssertionError) as exc:  # starlette's path syntax
                found.append(error(
                    "serve/route-invalid", endpoint.channel.item.file,
                    f"the route `{endpoint.route}` of `{endpoint.channel.name}` cannot be "
                    f"served: {exc}", "use `{name}` or `{name:int}` path parameters, each "
                    "name once (convertors: str, int, float, path, uuid)"))
        if found:
            raise DiagnosticsError("cannot serve the agent", found)
        self.router = Router(routes=routes, redirect_slashes=False)  # no Host-built redirects
        self.static = {route.path: route for route in routes
                       if isinstance(route, Route) and not route.param_convertors}

    async def dispatch(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer with the matching channel: a route with no parameters is found in a
        dict (a channel is on the hot path), any other request by the router."""
        route = self.static.get(scope["path"]) if not scope.get("root_path") else None
        if route is not None and route.methods and scope.get("method") in route.methods:
            scope["endpoint"] = route.endpoint
            scope["path_params"] = {}
            await route.handle(scope, receive, send)
        else:
            await self.router(scope, receive, send)


def open_generation(
    root: Path, number: int = 1, *, environ: Mapping[str, str] | None = None,
    channel_timeout: float = CHANNEL_TIMEOUT, fresh: bool = False,
    extensions: Sequence[Path] = (), states: MutableMapping[str, Any] | None = None,
    local_session: LocalSession | None = None,
) -> Generation:
    """Load the agent built in `root` (raises DiagnosticsError).

    `fresh` forgets the imported extension packages first, so a rebuilt extension's
    new code is imported (objects of older generations stay alive where in use).
    `states` and `local_session` keep the agent's state and local entries (`eve serve`:
    the session store's, durable; eve_build.serve.durable.served_states).
    """
    if fresh:
        forget_extension_modules(root)
    agent = load_agent(root, environ=environ, extensions=extensions, states=states,
                       local_session=local_session)
    try:
        channels = [ChannelEndpoint(channel, agent, shared_pool(), channel_timeout)
                    for channel in find_bound(agent, "channels")]
        schedules = find_bound(agent, "schedules")
        return Generation(number, agent, channels, schedules)
    except BaseException:
        agent.close()
        raise


def forget_extension_modules(root: Path) -> None:
    """Drop every mounted extension package from sys.modules."""
    from eve_build.formats.compiled import walk_trees

    compiled = read_compiled_agent(root)
    names = {m.import_name for tree in walk_trees(compiled.root) for m in tree.mounts}
    for key in [k for k in sys.modules if k.split(".")[0] in names]:
        del sys.modules[key]


class Host:
    """The ASGI app behind every channel: dispatches to the current generation.

    `eve dev` starts one with no generation (its first build is still running):
    until one is swapped in, channels answer 503.
    """

    def __init__(self, generation: Generation | None) -> None:
        self.current = generation
        self.retired: list[Generation] = []
        self.on_swap: list[Callable[[Generation], object]] = []  # told after each swap

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        generation = self.current  # taken once: the request finishes where it started
        if generation is None:
            response = error_response(503, "serve/not-ready", "no good generation yet: the "
                                      "agent is building or its build failed",
                                      "see `eve dev`; the next good build is served")
            await response(scope, receive, send)
            return
        generation.in_flight += 1
        try:
            await generation.dispatch(scope, receive, send)
        finally:
            generation.in_flight -= 1

    def swap(self, generation: Generation) -> Generation | None:
        """Make `generation` current; returns the one it replaced."""
        old, self.current = self.current, generation
        if old is not None:
            self.retired.append(old)
        for listener in list(self.on_swap):  # e.g. MCP subscriptions: a failure stays theirs
            try:
                listener(generation)
            except Exception:
                logger.exception("a swap listener failed")
        return old

    def close(self) -> None:
        """Close every generation, newest first."""
        newest_first = [*([self.current] if self.current else []), *reversed(self.retired)]
        for generation in newest_first:
            generation.agent.close()
        self.retired.clear()
        self.current = None
