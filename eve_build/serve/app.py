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
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route

from eve_build._version import __version__
from eve_build.runtime.loopwatch import LoopWatch
from eve_build.runtime.userloop import merge_status, user_loop_status
from eve_build.serve.admission import (
    Admission,
    AdmissionPolicy,
    derive_admission,
    derive_cors,
)
from eve_build.serve.answers import answer_http_exception
from eve_build.serve.barrier import Barrier
from eve_build.serve.claims import ScheduleClaims
from eve_build.serve.contributions import BoundContribution
from eve_build.serve.durable import served_states
from eve_build.serve.generation import Host, open_generation
from eve_build.serve.request import CHANNEL_TIMEOUT, MAX_BODY
from eve_build.serve.scheduler import Clock, Scheduler, local_now
from eve_build.serve.schedules import ScheduleRun, run_schedule
from eve_build.serve.scope import served_scope
from eve_build.session.store import SessionStore
from eve_build.settings import parse_setting

HEALTH_PATH = "/.eve/health"
READY_PATH = "/.eve/ready"
"""Readiness (docs/deploying.md): 200 once the agent is loaded and the store answers."""
IDLE_LOOP = {"blocked": False, "blocks": 0, "lastBlock": None}
"""The health's `loop` when no lifespan ran (no watchdog: an ASGI transport in tests)."""
Lifespan = Callable[[Starlette], AbstractAsyncContextManager[Any]]
Sleep = Callable[[float], Awaitable[None]]


def build_app(
    root: Path, *, environ: Mapping[str, str] | None = None,
    channel_timeout: float = CHANNEL_TIMEOUT, routes: Sequence[BaseRoute] = (),
    lifespans: Sequence[Lifespan] = (), schedules: bool = True, clock: Clock = local_now,
    host: Host | None = None, extensions: Sequence[Path] = (), max_body: int = MAX_BODY,
    store: SessionStore | None = None, sleep: Sleep | None = None,
    admission: AdmissionPolicy | None = None,
) -> Starlette:
    """The served agent of `root` (raises DiagnosticsError when it cannot load).

    `host` (from `eve dev`) is served as it is, instead of loading `root` now;
    `extensions` are local extensions to load besides the usual ones (`-e`);
    `max_body` bounds every request body (bytes; 413 past it, eve_build.serve.barrier).
    With `store` (`eve serve`), the agent's state lives in it (durable, shared by every
    process on the store), each schedule's due time is claimed there so that one process
    runs it, and the app closes the store when it stops; without, state is in memory.
    `clock` and `sleep` are the scheduler's (tests accelerate them). `admission` is the
    policy every request passes first (eve_build.serve.admission); by default that of a
    server on 127.0.0.1 with EVE_ALLOW_HOSTS / EVE_ALLOW_ORIGINS of the environment.
    """
    if admission is None:
        import os

        admission = derive_admission("127.0.0.1", environ=os.environ)
    channel_timeout = parse_setting("--channel-timeout", channel_timeout)
    max_body = int(parse_setting("--max-body", max_body))
    claims = None
    if store is not None:
        claims = ScheduleClaims(store.schedule_runs(served_scope(store, root, environ)))
    if host is None:
        durable = served_states(store, root, environ) if store is not None else {}
        host = Host(open_generation(root, environ=environ, channel_timeout=channel_timeout,
                                    extensions=extensions, **durable))
    served = host
    scheduler = Scheduler(lambda: served.current.schedules if served.current else [],
                          lambda s: _run_on_current(served, s), clock, claims)

    watches: list[LoopWatch] = []

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        ticking = asyncio.ensure_future(scheduler.run(*([sleep] if sleep else []))) \
            if schedules else None
        watch = LoopWatch(asyncio.get_running_loop())  # names what blocks the loop
        watch.start()
        watches.append(watch)
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
            watch.stop()
            host.close()
            sessions.close()
            if store is not None:
                store.close()

    async def health(_request: Request) -> JSONResponse:
        current = served.current
        if current is None:
            return JSONResponse({"status": "starting", "generation": None,
                                 "eveBuild": __version__, "channels": [], "schedules": []},
                                status_code=503)
        return JSONResponse({
            "status": "ok", "generation": current.number, "eveBuild": __version__,
            "channels": [f"{c.method} {c.route}" for c in current.channels],
            "schedules": [s.name for s in current.schedules],
            # the serving loop and the user loops where async user code runs
            "loop": merge_status(watches[-1].status(), user_loop_status()) if watches
            else IDLE_LOOP,
        })

    async def ready(_request: Request) -> JSONResponse:
        """Liveness is `health`; this says whether to send traffic: the agent is loaded and
        the store answers (a round trip on the store's own connection, which also reopens
        a dropped one)."""
        from eve_build.errors import DiagnosticsError
        from eve_build.session.problems import RETRY_AFTER

        current = served.current
        if current is None:
            return JSONResponse({"status": "starting", "generation": None}, status_code=503,
                                headers={"Retry-After": RETRY_AFTER})
        if store is not None:
            try:
                await asyncio.to_thread(store.ping)
            except DiagnosticsError as exc:
                first = exc.diagnostics[0] if exc.diagnostics else None
                return JSONResponse({"status": "store-unavailable",
                                     "generation": current.number, "error": {
                                         "code": first.code if first else "session/failed",
                                         "message": first.message if first else exc.message,
                                         "hint": first.hint if first else exc.hint}},
                                    status_code=503, headers={"Retry-After": RETRY_AFTER})
        return JSONResponse({"status": "ready", "generation": current.number})

    from eve_build.serve.sessions import SessionRoutes
    from eve_build.session.storage import Storage

    sessions = SessionRoutes(served, root, Storage(store) if store is not None else None,
                             environ)
    app = Starlette(routes=[Route(HEALTH_PATH, health, methods=["GET"]),
                            Route(READY_PATH, ready, methods=["GET"]), *sessions.routes(),
                            *routes], lifespan=lifespan,
                    middleware=[Middleware(Admission, policy=admission),
                                *filter(None, [derive_cors(admission)]),
                                Middleware(Barrier, max_body=max_body)],
                    exception_handlers={HTTPException: answer_http_exception})
    # never a redirect: starlette builds its slash redirects from the Host header
    app.router.redirect_slashes = False
    app.router.default = host  # channels answer whatever no route matched
    app.state.host = host
    app.state.scheduler = scheduler
    app.state.store = store
    app.state.claims = claims
    app.state.sessions = sessions
    return app


async def _run_on_current(host: Host, schedule: BoundContribution) -> ScheduleRun:
    """Run a schedule with the agent of the generation that is current now."""
    current = host.current
    if current is None:
        return ScheduleRun(schedule.name, "run", "failed", 0.0, error="no generation is loaded")
    return await run_schedule(current.agent, schedule)
