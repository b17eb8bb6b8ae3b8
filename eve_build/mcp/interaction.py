"""The MCP client answers what a tool asks: `ctx.ask` is `elicitation/create`, `ctx.sample`
is `sampling/createMessage`, `ctx.log` is `notifications/message` and numeric
`ctx.report_progress` is `notifications/progress` (docs/mcp.md, "What maps to what").

Every `tools/call` (and `prompts/get`, where commands run) gets an `McpCall`, which
installs those answerers with the interaction seam (`eve_build.sdk.interaction`) around
the call. What the client did not declare stays unanswered, with a reason naming the
capability: a client without `elicitation` cannot be asked, one without `sampling`
cannot lend its model.

Two protocol eras, one behaviour:

- handshake versions (up to 2025-11-25): the server sends its request to the client on
  the call's own stream and awaits the reply while the tool waits;
- 2026-07-28: there is no back-channel; the call answers `InputRequiredResult` (the
  question, and a `requestState` token) while the tool waits, parked here, and the
  client's retry carrying the answer wakes it. A parked call that no retry wakes within
  `EVE_INPUT_TIMEOUT` seconds (300 by default) sees `Cancelled`.

Logs: `logging/setLevel` sets the lowest level a connection receives; until a client sets
one it receives every level (the spec leaves the default to the server; the SDK sends
all). On 2026-07-28 the request's own `_meta` log level decides instead, as the spec says.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import secrets
from collections.abc import Awaitable, Callable, Coroutine, Iterator, Mapping
from typing import Any, TypeVar

from mcp import types
from mcp.server.connection import allowed_log_levels
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp.shared.message import ServerMessageMetadata
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from eve_build.runtime.approval import ApprovalRequest, ApprovalSession
from eve_build.runtime.trace import logger
from eve_build.sdk.interaction import (
    INPUT_TIMEOUT_VARIABLE,
    LOG_LEVELS,
    Cancelled,
    Declined,
    InteractionError,
    LogEntry,
    Question,
    SampleRequest,
    current_interaction,
    interacting,
    read_input_timeout,
    run_answerer,
)

R = TypeVar("R")
Context = ServerRequestContext[Any]

DEFAULT_MAX_TOKENS = 1024
"""`maxTokens` of a `sampling/createMessage` when `ctx.sample` names none (MCP requires one)."""
LEVEL_KEY = "eve/log-level"
"""Where a connection's `logging/setLevel` is kept (the connection's own state)."""
APPROVALS_KEY = "eve/approvals"
"""Where a connection's `once()` answers are kept: one client's user approves for it only."""

NO_ELICITATION = ("this MCP client did not declare the `elicitation` capability, so eve "
                  "cannot ask its user; use a client that supports elicitation, or run the "
                  "tool where a person can answer: `eve chat`, `eve call` on a terminal, "
                  "`eve run --answer field=value`")
NO_SAMPLING = ("this MCP client did not declare the `sampling` capability, so eve cannot "
               "ask its model; use a client that supports sampling, or give the agent a "
               "model of its own: `--model`, `EVE_MODEL` or `define_agent(model=...)`")
_SCHEMA_KEYS = ("type", "title", "description", "default", "enum", "enumNames", "format",
                "minimum", "maximum", "minLength", "maxLength", "oneOf", "anyOf", "items")


def is_modern(ctx: Context) -> bool:
    """Whether the connection speaks 2026-07-28 (no back-channel: input_required)."""
    return ctx.session.protocol_version in MODERN_PROTOCOL_VERSIONS


def client_can_elicit(ctx: Context) -> bool:
    capabilities = ctx.session.client_capabilities
    elicitation = capabilities.elicitation if capabilities is not None else None
    # a client declaring only URL mode cannot fill a form; `{}` means form (the spec)
    return elicitation is not None and (elicitation.form is not None or elicitation.url is None)


def client_can_sample(ctx: Context) -> bool:
    capabilities = ctx.session.client_capabilities
    return capabilities is not None and capabilities.sampling is not None


# -- logging/setLevel --------------------------------------------------------------


def _connection_state(ctx: Context) -> dict[str, Any] | None:
    """The connection's scratch state (the SDK's `Connection.state`), which outlives the
    request: the session object is a per-request proxy, so the level cannot live there."""
    connection = getattr(ctx.session, "_connection", None)
    state = getattr(connection, "state", None)
    return state if isinstance(state, dict) else None


async def set_logging_level(ctx: Context, params: types.SetLevelRequestParams,
                            ) -> types.EmptyResult:
    """`logging/setLevel`: the connection receives `params.level` and above from now on.
    An unknown level never gets here: the SDK answers it INVALID_PARAMS."""
    state = _connection_state(ctx)
    if state is None:  # pragma: no cover - every SDK connection has its state
        raise MCPError(types.INTERNAL_ERROR, "this connection cannot keep a log level")
    state[LEVEL_KEY] = params.level
    return types.EmptyResult()


def connection_approvals(ctx: Context) -> ApprovalSession | None:
    """The `once()` answers of this connection's user (None: the agent's own session)."""
    state = _connection_state(ctx)
    if state is None:  # pragma: no cover - every SDK connection has its state
        return None
    approvals = state.setdefault(APPROVALS_KEY, ApprovalSession())
    return approvals if isinstance(approvals, ApprovalSession) else None


def log_allowed(ctx: Context, level: str) -> bool:
    """Whether a `level` message may go to the client of this request."""
    if is_modern(ctx):
        return level in allowed_log_levels(ctx.session.protocol_version, ctx.meta)
    state = _connection_state(ctx) or {}
    lowest = state.get(LEVEL_KEY)
    if lowest not in LOG_LEVELS:  # nothing set: every level
        return True
    return LOG_LEVELS.index(level) >= LOG_LEVELS.index(lowest)


# -- one call ----------------------------------------------------------------------


class Parked:
    """The calls waiting for a client's retry (2026-07-28), by their `requestState`."""

    def __init__(self) -> None:
        self.calls: dict[str, McpCall] = {}

    def park(self, call: McpCall) -> str:
        token = secrets.token_urlsafe(24)
        self.calls[token] = call
        return token

    def take(self, token: str, source: str) -> McpCall:
        """The call `token` parked, when the retry names the same tool or prompt."""
        call = self.calls.get(token)
        if call is not None and call.source != source:
            raise MCPError(types.INVALID_PARAMS, f"this requestState continues `{call.source}`, "
                                                 f"not `{source}`")
        call = self.calls.pop(token, None)
        if call is None:
            raise MCPError(types.INVALID_PARAMS,
                           "unknown or expired requestState: the call it continued is gone "
                           "(answered already, timed out, or the server restarted); call "
                           "again")
        return call


class McpCall:
    """The answerers of one tools/call or prompts/get, and the order of what it sends."""

    def __init__(self, ctx: Context, parked: Parked, *, source: str) -> None:
        self.ctx = ctx
        self.parked = parked
        self.source = source
        self.loop = asyncio.get_running_loop()
        self.outbox: asyncio.Queue[Callable[[], Awaitable[None]]] = asyncio.Queue()
        self.sender = asyncio.create_task(self._send_all())
        self.last_progress = 0.0
        self.task: asyncio.Task[Any] | None = None
        # 2026-07-28: the one question waiting for the client's retry
        self.question: tuple[str, types.ElicitRequest | types.CreateMessageRequest] | None = None
        self.answer: asyncio.Future[Any] | None = None
        self.asked = asyncio.Event()
        self.keys = itertools.count(1)
        self.expiry: asyncio.TimerHandle | None = None

    # what the tool sees -----------------------------------------------------------

    @contextlib.contextmanager
    def installed(self) -> Iterator[None]:
        """The answerers this client can give, over the enclosing ones."""
        can_sample = client_can_sample(self.ctx) and current_interaction().sample is None
        with interacting(ask=self.ask if client_can_elicit(self.ctx) else None,
                         sample=self.sample if can_sample else None,
                         log=self.log, progress=self.progress, loop=self.loop,
                         ask_ways=NO_ELICITATION,
                         sample_ways=None if current_interaction().sample else NO_SAMPLING):
            yield

    async def ask(self, question: Question) -> Mapping[str, Any]:
        if question.errors:  # the client's last answer did not fit: an error result, not
            # the same form again (a terminal asks again; MCP answers the call)
            shown = "; ".join(f"{e['field']}: {e['message']}" for e in question.errors)
            raise InteractionError(f"the answer to `{question.message}` does not fit the "
                                   f"question: {shown}", "answer with values of the asked "
                                   "types")
        request = types.ElicitRequest(params=types.ElicitRequestFormParams(
            message=question.message, requested_schema=requested_schema(question.schema)))
        try:
            result = types.ElicitResult.model_validate(
                await self.exchange(request, types.ElicitResult))
        except MCPError as exc:
            raise InteractionError(f"the MCP client did not answer `{question.message}`: "
                                   f"{exc.error.message}",
                                   "the client's elicitation failed; try again") from None
        except (Declined, Cancelled):
            raise
        except Exception as exc:  # no back-channel, a malformed reply
            raise InteractionError(f"the MCP client could not be asked `{question.message}`: "
                                   f"{exc}", NO_ELICITATION) from None
        if result.action == "decline":
            raise Declined(f"the user declined: {question.message}")
        if result.action == "cancel":
            raise Cancelled(f"the user dismissed the question: {question.message}")
        return dict(result.content or {})

    async def sample(self, request: SampleRequest) -> str:
        messages = [types.SamplingMessage(
            role="assistant" if message.get("role") == "assistant" else "user",
            content=types.TextContent(type="text", text=str(message.get("content", ""))))
            for message in request.messages]
        create = types.CreateMessageRequest(params=types.CreateMessageRequestParams(
            messages=messages, system_prompt=request.system,
            max_tokens=request.max_tokens or DEFAULT_MAX_TOKENS))
        try:
            result = types.CreateMessageResult.model_validate(
                await self.exchange(create, types.CreateMessageResult))
        except MCPError as exc:
            raise InteractionError(f"`{self.source}` asked the MCP client's model, and the "
                                   f"client refused: {exc.error.message}",
                                   "the client (or its user) declined the sampling "
                                   "request; allow it in the client, or give the agent a "
                                   "model of its own (`--model`, `EVE_MODEL`)") from None
        except Cancelled:
            raise
        except Exception as exc:  # no back-channel, a malformed reply
            raise InteractionError(f"`{self.source}` could not ask the MCP client's model: "
                                   f"{exc}", NO_SAMPLING) from None
        content = result.content
        if not isinstance(content, types.TextContent):
            raise InteractionError(f"`{self.source}` asked the MCP client's model, which "
                                   f"answered with {content.type}, not text",
                                   "ctx.sample takes text replies only")
        return content.text

    def log(self, entry: LogEntry) -> None:
        """Thread-safe: queued, sent in order before the call's result."""
        if log_allowed(self.ctx, entry.level):
            self._queue(lambda: self._send_log(entry))

    def progress(self, entry: LogEntry) -> None:
        """Numeric progress only: text progress comes through `send_text_progress`."""
        if entry.progress is not None:
            progress, total = entry.progress, entry.total
            self._queue(lambda: self._send_progress(progress, total, entry.text))

    async def send_text_progress(self, _step: float, text: str) -> None:
        """`call_mcp_tool`'s text progress, numbered after whatever was sent before."""
        await self._send_progress(float(int(self.last_progress) + 1), None, text)

    async def approve(self, request: ApprovalRequest) -> bool:
        """An approval is a yes/no question to the client's user (elicitation)."""
        schema = {"type": "object", "properties": {"approve": {
            "type": "boolean", "title": "Approve",
            "description": f"Run `{request.tool}` with these arguments"}},
            "required": ["approve"]}
        arguments = json.dumps(request.arguments, default=str, ensure_ascii=False)
        question = Question(f"Allow `{request.tool}` to run with {arguments}? "
                            f"(approval: {request.policy})", schema, tool=request.tool)
        try:
            answer = await run_answerer(current_interaction(), lambda: self.ask(question))
        except (Declined, Cancelled):
            return False
        return answer.get("approve") is True

    # the exchange with the client -------------------------------------------------

    async def exchange(self, request: types.ElicitRequest | types.CreateMessageRequest,
                       result_type: type[types.ElicitResult] | type[types.CreateMessageResult],
                       ) -> Any:
        """Send one server-to-client request and give its result (MCPError when the
        client answers an error)."""
        if not is_modern(self.ctx):
            await self.flush()  # what the tool logged before asking arrives first
            return await self.ctx.session.send_request(
                request, result_type,
                metadata=ServerMessageMetadata(related_request_id=self.ctx.request_id))
        self.answer = self.loop.create_future()
        self.question = (f"q{next(self.keys)}", request)
        self.asked.set()
        return await self.answer

    async def run(self, work: Callable[[McpCall], Coroutine[Any, Any, R]],
                  ) -> R | types.InputRequiredResult:
        """Start the call's work with the answerers installed; its result, or (2026-07-28)
        the question it waits on."""
        with self.installed():
            self.task = asyncio.create_task(work(self))
        outcome: R | types.InputRequiredResult = await self._outcome()
        return outcome

    async def resume(self, ctx: Context, responses: Mapping[str, Any] | None) -> Any:
        """The client's retry (2026-07-28): the answer wakes the waiting tool."""
        self.ctx = ctx
        if self.expiry is not None:
            self.expiry.cancel()
        key = self.question[0] if self.question is not None else ""
        response = (responses or {}).get(key)
        self.question = None
        if self.answer is not None and not self.answer.done():
            if response is None:
                self.answer.set_exception(Cancelled(f"the client's retry carried no "
                                                    f"answer to `{key}`"))
            else:
                self.answer.set_result(response.model_dump(by_alias=True, mode="json",
                                                           exclude_none=True)
                                       if hasattr(response, "model_dump") else response)
        return await self._outcome()

    async def _outcome(self) -> Any:
        assert self.task is not None
        self.asked.clear()
        waiter = asyncio.create_task(self.asked.wait())
        try:
            await asyncio.wait({self.task, waiter}, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:  # the client cancelled the request: the call too
            self.task.cancel()
            self.sender.cancel()
            raise
        finally:
            waiter.cancel()
        if self.task.done() or self.question is None:
            try:
                return await self.task
            finally:
                await self.close()
        await self.flush()
        token = self.parked.park(self)
        self.expiry = self.loop.call_later(input_timeout(), self._expire, token)
        key, request = self.question
        return types.InputRequiredResult(input_requests={key: request}, request_state=token)

    def _expire(self, token: str) -> None:
        self.parked.calls.pop(token, None)
        if self.answer is not None and not self.answer.done():
            waited = f"{INPUT_TIMEOUT_VARIABLE}={input_timeout():g} s"
            self.answer.set_exception(Cancelled(f"the question timed out unanswered ({waited})"))

    # what is sent, in order -------------------------------------------------------

    def _queue(self, send: Callable[[], Awaitable[None]]) -> None:
        with contextlib.suppress(RuntimeError):  # the loop closed: nothing to send to
            self.loop.call_soon_threadsafe(self.outbox.put_nowait, send)

    async def _send_all(self) -> None:
        while True:
            send = await self.outbox.get()
            try:
                await send()
            except Exception as exc:  # a gone client must not fail the call
                logger.warning("a notification was not sent: %s", exc)
            finally:
                self.outbox.task_done()

    async def flush(self) -> None:
        await asyncio.sleep(0)  # let what a worker thread queued land first
        await self.outbox.join()

    async def close(self) -> None:
        await self.flush()
        self.sender.cancel()

    async def _send_log(self, entry: LogEntry) -> None:
        await self.ctx.session.send_notification(
            types.LoggingMessageNotification(params=types.LoggingMessageNotificationParams(
                level=entry.level, data=entry.text,
                logger=entry.source or self.source)),
            related_request_id=self.ctx.request_id)

    async def _send_progress(self, progress: float, total: float | None, text: str) -> None:
        self.last_progress = max(self.last_progress, progress)
        await self.ctx.session.report_progress(progress, total, text or None)


def requested_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A question's JSON Schema as MCP's `requestedSchema`: a flat object of primitive
    fields, with pydantic's extras (model title, `$defs`) left out."""
    properties = {name: {key: value for key, value in dict(field).items() if key in _SCHEMA_KEYS}
                  for name, field in dict(schema.get("properties", {})).items()}
    shaped: dict[str, Any] = {"type": "object", "properties": properties}
    if schema.get("required"):
        shaped["required"] = list(schema["required"])
    return shaped


def input_timeout() -> float:
    """How long a parked call waits for the client's retry (checked when the agent loads)."""
    return read_input_timeout(os.environ)


async def interactive(ctx: Context, params: types.InputResponseRequestParams, parked: Parked,
                      source: str, work: Callable[[McpCall], Coroutine[Any, Any, R]],
                      ) -> R | types.InputRequiredResult:
    """Run `work` (a tools/call or prompts/get) with the client as its answerers; a
    2026-07-28 retry (`requestState`) continues the call it names."""
    if params.request_state is not None:
        call = parked.take(params.request_state, source)
        resumed: R | types.InputRequiredResult = await call.resume(ctx, params.input_responses)
        return resumed
    return await McpCall(ctx, parked, source=source).run(work)

