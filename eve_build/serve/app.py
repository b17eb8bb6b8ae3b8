"""The ASGI application: health, extra routes, every channel, and the scheduler.

    app = create_app(Path("my-agent"))          # loads the built agent now
    app = create_app(root, routes=[Mount("/mcp", app=mcp_app)],
                     lifespans=[lambda app: session_manager.run()])

Extra routes are matched before the channels (routes added later with
`app.add_route` / `app.mount` are too: channels answer only what no route
matched). Each lifespan is a callable taking the app and returning an async
context manager, entered in order when the server starts, after the scheduler,
and left in reverse order when it stops.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route

from eve_build._version import __version__
from eve_build.serve.generation import Host, open_generation
from eve_build.serve.request import CHANNEL_TIMEOUT
from eve_build.serve.scheduler import Clock, Scheduler, local_now
from eve_build.serve.schedules import run_schedule

HEALTH_PATH = "/.eve/health"
Lifespan = Callable[[Starlette], AbstractAsyncContextManager[Any]]


def build_app(
    root: Path, *, environ: Mapping[str, str] | None = None,
    channel_timeout: float = CHANNEL_TIMEOUT, routes: Sequence[BaseRoute] = (),
    lifespans: Sequence[Lifespan] = (), schedules: bool = True, clock: Clock = local_now,
) -> Starlette:
    """The served agent of `root` (raises DiagnosticsError when it cannot load)."""
    host = Host(open_generation(root, environ=environ, channel_timeout=channel_timeout))
    scheduler = Scheduler(lambda: host.current.schedules,
                          lambda s: run_schedule(host.current.agent, s), clock)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        ticking = asyncio.ensure_future(scheduler.run()) if schedules else None
        try:
            async with contextlib.AsyncExitStack() as stack:
                for extra in lifespans:
                    await stack.enter_async_context(extra(app))
                yield
        finally:
            if ticking is not None:
                ticking.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await ticking
            scheduler.cancel()
            host.close()

    async def health(_request: Request) -> JSONResponse:
        current = host.current
        return JSONResponse({
            "status": "ok", "generation": current.number, "eveBuild": __version__,
            "channels": [f"{c.method} {c.route}" for c in current.channels],
            "schedules": [s.name for s in current.schedules],
        })

    app = Starlette(routes=[Route(HEALTH_PATH, health, methods=["GET"]), *routes],
                    lifespan=lifespan)
    app.router.default = host  # channels answer whatever no route matched
    app.state.host = host
    app.state.scheduler = scheduler
    return app
