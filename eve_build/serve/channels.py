"""A channel answering HTTP: run `handle(request, ctx)` and shape what it returns.

A dict or list becomes JSON, a string text, None an empty 204, a starlette
Response is sent as it is. Whatever goes wrong on the handler's side (it raises,
runs past the channel timeout, returns something that cannot be sent) is a 500
whose body names the channel and the code (eve_build.serve.answers), and one log
line with the reason; the server keeps serving. A body that is not JSON given to
`request.json()` is the client's mistake: 400 with the reason (415 when its
Content-Type says it is something else).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from eve_build.errors import describe_error
from eve_build.runtime.agent import Agent
from eve_build.runtime.handlers import HandlerRun, run_bound
from eve_build.runtime.loopwatch import LABELS
from eve_build.runtime.workers import WorkerPool
from eve_build.sdk.binding import ToolContext
from eve_build.serve.answers import error_response
from eve_build.serve.contributions import BoundContribution
from eve_build.serve.faults import fault_response, find_response_problem, log_fault
from eve_build.serve.request import CHANNEL_TIMEOUT, ChannelRequest, RequestBodyError
from eve_build.session.problems import RETRY_AFTER, StoreUnavailable

logger = logging.getLogger("eve_build.serve")
logger.addHandler(logging.NullHandler())  # a library logs; the application shows it
_encode_json = json.JSONEncoder(ensure_ascii=False, allow_nan=False).encode


class ChannelFailure(Exception):
    """The handler's side failed; the message is the log line's reason, `code` its code."""

    def __init__(self, reason: str, code: str = "serve/channel-result-invalid",
                 error: BaseException | None = None) -> None:
        super().__init__(reason)
        self.code = code
        self.error = error


@dataclass(frozen=True)
class ChannelEndpoint:
    """One bound channel, callable as a starlette endpoint."""

    channel: BoundContribution
    agent: Agent
    pool: WorkerPool
    timeout: float = CHANNEL_TIMEOUT

    @property
    def route(self) -> str:
        return str(self.channel.item.details.get("route") or self.channel.definition.route)

    @property
    def method(self) -> str:
        return str(self.channel.item.details.get("method") or self.channel.definition.method)

    def describe(self) -> str:
        return f"channel `{self.channel.name}` ({self.method} {self.route})"

    async def __call__(self, request: Request) -> Response:
        task = asyncio.current_task()
        if task is not None:  # a dict write, not a context manager: the hot path
            LABELS[task] = f"channel `{self.channel.name}`"
        try:
            return await self._serve(request)
        finally:
            if task is not None:
                LABELS.pop(task, None)

    async def _serve(self, request: Request) -> Response:
        given = ChannelRequest(method=request.method, path=request.scope["path"],
                               content=await request.body(), channel=self.channel.name,
                               source=request)
        observed = observes(self.agent, self.channel.tree, "channel.request")
        started = time.perf_counter()
        if observed:
            await self._observe("start", path=given.path, method=given.method)
        response = await self._answer(given)
        if observed:
            await self._observe("end", path=given.path, method=given.method,
                                status=response.status_code,
                                seconds=round(time.perf_counter() - started, 6))
        return response

    async def _answer(self, request: ChannelRequest) -> Response:
        if self.channel.binding.unavailable:  # its mount did not open (an unset variable)
            logger.error("%s: 503: `%s` cannot run: %s", self.describe(), self.channel.name,
                         self.channel.binding.unavailable)
            return fault_response("serve/channel-unavailable", f"the channel "
                                  f"`{self.channel.name}` is unavailable", 503,
                                  channel=self.channel.name)
        handle = self.channel.definition.handle
        context = ToolContext(name=self.channel.name, namespace=self.channel.item.mount)
        # a sync handler on a worker thread, an async one on the user loop: a handler that
        # blocks (even its event loop) never stalls the server, and the timeout holds
        done = await run_bound(handle, (request, context), binding=self.channel.binding,
                               pool=self.pool, budget=self.timeout)
        try:
            return derive_response(self._value(done))
        except RequestBodyError as exc:
            logger.warning("%s: %d: %s", self.describe(), exc.status, exc)
            return error_response(exc.status, exc.code, str(exc), exc.hint,
                                  channel=self.channel.name)
        except StoreUnavailable as exc:
            reason = exc.diagnostics[0].message if exc.diagnostics else exc.message
            logger.error("%s: 503: %s", self.describe(), reason)
            return error_response(503, "session/store-unreachable",
                                  f"the session store is unavailable: {reason}",
                                  "try again once the store is back",
                                  headers={"Retry-After": RETRY_AFTER},
                                  channel=self.channel.name)
        except ChannelFailure as exc:  # one redacted line; the traceback only at DEBUG (-v)
            log_fault(self.describe(), 500, exc.code, str(exc), exc.error)
            return fault_response(exc.code, f"the channel `{self.channel.name}` failed",
                                  channel=self.channel.name)

    def _value(self, done: HandlerRun) -> Any:
        if done.ending == "timeout":
            raise ChannelFailure(f"the handler did not answer within {self.timeout:g} s",
                                 "serve/channel-timeout")
        if done.ending == "raised":
            error = done.error or RuntimeError()
            if isinstance(error, RequestBodyError | StoreUnavailable):
                raise error
            raise ChannelFailure(f"the handler raised {describe_error(error)}",
                                 "serve/channel-raised", error)
        return done.value

    async def _observe(self, phase: str, **data: Any) -> None:
        """Tell observers (`channel.request` hooks); they never change the answer."""
        await self.agent.afire("channel.request", subagent=self.channel.tree or None,
                               data={"channel": self.channel.name, "phase": phase, **data})


def observes(agent: Agent, tree: str, event: str) -> bool:
    """Whether any hook of that agent tree subscribes to `event` (else firing is skipped)."""
    return any(entry.handler(event) is not None
               for entry in agent.surface(tree or None).pipeline.hooks)


def derive_response(value: Any) -> Response:
    """The HTTP response for what a handler returned (raises ChannelFailure)."""
    if type(value) is dict:  # the common case first
        return Response(_dump(value), media_type="application/json")
    if isinstance(value, Response):  # checked: uvicorn would drop the connection on it
        problem = find_response_problem(value.status_code, value.raw_headers)
        if problem is not None:
            raise ChannelFailure(f"the handler returned a Response that cannot be sent: "
                                 f"{problem}", "serve/response-invalid")
        return value
    if value is None:
        return Response(status_code=204)
    if isinstance(value, str):
        return PlainTextResponse(value)
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json")
    if isinstance(value, dict | list):
        return Response(_dump(value), media_type="application/json")
    raise ChannelFailure(f"the handler returned {type(value).__name__}; a channel returns a "
                         "dict or list (JSON), a str (text), None (204) or a Response")


def _dump(value: Any) -> str:
    try:
        return _encode_json(value)
    except (TypeError, ValueError) as exc:
        raise ChannelFailure(f"the handler returned a value that is not JSON: {exc}"
                             ) from None
