"""Agent sessions over HTTP (DESIGN section 12), beside the channels of `eve serve`.

    POST /.eve/v1/sessions                 {"model": "openai:gpt-4.1"}?  -> 201 {"id": ...}
    POST /.eve/v1/sessions/{id}/messages   {"text": "..."}              -> the `eve run
                                            --json` body; with `Accept: text/event-stream`,
                                            server-sent events of the turn, then `reply`
    POST /.eve/v1/sessions/{id}/inputs/{input_id}   the fields, or {"action": "decline"}
                                            -> 200; the answer to an `input.required`

Every session runs on the served agent of the current generation (its state is the
served agent's, durable in the store); its messages are its own, kept in the
session store one turn per message. A tool that asks the person (`ctx.ask`), or asks
for approval (`always()`, `once()`: a yes/no question with one boolean field
`approve`), sends `input.required` on the stream and waits for
the answer, which any worker takes through the store (eve_build.session.asking; 422 an
answer that does not fit, 404 an unknown question, 409 one closed already); a JSON
request that asks is answered 409 `session/input-required` with the question. Errors are the one
shape of eve_build.serve.answers, `{"error": {"code", "message", "hint"}}`: 400 a body
that is not the JSON asked for (nested too deeply, a lone surrogate in `text`, a
`model` that names no model), 404 an unknown session, 409 a session with a message in
progress, 502 the model failed, 504 the message passed EVE_TURN_TIMEOUT, 503 (with
`Retry-After`) the session store is unavailable (unreachable, replaced), 500 the
session cannot start (no model, no key, the extra missing). Which requests reach these
routes is eve_build.serve.admission's.

The store owns every session (eve_build.session.claims): a message first claims its
session in the store (409 `session/busy` while any process on the store runs a turn of
it, JSON and streamed requests alike: the claim is taken before the response starts),
and its turn starts from the store's last committed turn. The sessions a process keeps
opened are only a cache of at most OPEN_SESSIONS, used when it is at that turn and
otherwise reopened from the store; the least recently used beyond the bound is dropped.
A client that hangs up (JSON or SSE) cancels its message: nothing of it is committed,
its claim is released and the session takes the next one at once.
"""

from __future__ import annotations

import asyncio
import json
from collections import OrderedDict
from collections.abc import AsyncIterator, Coroutine, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from eve_build.errors import DiagnosticsError, EveBuildError
from eve_build.serve.answers import error_body, error_response
from eve_build.serve.generation import Host
from eve_build.session.claims import SessionClaim
from eve_build.session.problems import RETRY_AFTER, StoreUnavailable
from eve_build.session.storage import Storage
from eve_build.session.transcript import SessionEvent

T = TypeVar("T")
SESSIONS_PATH = "/.eve/v1/sessions"
MODEL_FAILURES = ("session/model-unreachable", "session/model-auth", "session/model-rate-limited",
                  "session/model-http-error", "session/model-timeout", "session/model-failed",
                  "session/request-limit")
"""Codes answered 502: the model (not this server) failed the turn."""
CONFLICTS = ("session/busy", "session/moved-on")
"""Codes answered 409: another turn of the session runs, or was committed meanwhile."""


def _describe(exc: EveBuildError) -> tuple[int, dict[str, Any]]:
    first = exc.diagnostics[0] if isinstance(exc, DiagnosticsError) and exc.diagnostics else None
    code = first.code if first is not None else "session/failed"
    status = 404 if code == "session/id-unknown" else 502 if code in MODEL_FAILURES \
        else 409 if code in CONFLICTS else 503 if isinstance(exc, StoreUnavailable) \
        else 504 if code == "session/turn-timeout" else 500
    return status, error_body(code, first.message if first else exc.message,
                              first.hint if first else exc.hint)


def _from_error(exc: EveBuildError, status: int | None = None) -> JSONResponse:
    described, body = _describe(exc)
    status = status or described
    headers = {"Retry-After": RETRY_AFTER} if status == 503 else None
    return JSONResponse(body, status_code=status, headers=headers)


OPEN_SESSIONS = 32
"""Opened sessions (engine, tools, history) a server process keeps between messages."""


@dataclass
class _Opened:
    session: Any  # an engine Session
    turns: int  # the store's last committed turn its history holds


BAD_MODEL_NAMES = ("session/model-provider-missing", "session/provider-unknown",
                   "session/model-failed")
"""Codes of a model name that cannot be opened: 400 when the request's body named it."""


def _names_a_bad_model(exc: EveBuildError) -> bool:
    return isinstance(exc, DiagnosticsError) and any(
        d.code in BAD_MODEL_NAMES for d in exc.diagnostics)


def _is_unicode(text: str) -> bool:
    """False for a string holding a lone surrogate (`"\\ud800"` in JSON)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class SessionRoutes:
    def __init__(self, host: Host, root: Path, storage: Storage | None,
                 environ: Mapping[str, str] | None) -> None:
        """`storage` None: the app's own store is opened at the first session request
        (so `eve dev` never touches a store it does not use)."""
        self.host, self.root, self.environ = host, root, environ
        self._storage, self._opened = storage, False
        self.sessions: OrderedDict[str, _Opened] = OrderedDict()  # an LRU cache, see above

    @property
    def storage(self) -> Storage:
        if self._storage is None:
            from eve_build.session.storage import open_storage

            self._storage, self._opened = open_storage(self.root), True
        return self._storage

    def close(self) -> None:
        if self._opened and self._storage is not None:
            self._storage.close()

    def routes(self) -> list[Route]:
        return [Route(SESSIONS_PATH, self.create, methods=["POST"]),
                Route(SESSIONS_PATH + "/{id}/messages", self.message, methods=["POST"]),
                Route(SESSIONS_PATH + "/{id}/inputs/{input_id}", self.answer,
                      methods=["POST"])]

    async def create(self, request: Request) -> Response:
        body = await _read_body(request, required=False)
        if isinstance(body, Response):
            return body
        model = body.get("model")
        if model is not None and not isinstance(model, str):
            return error_response(400, "session/body-invalid", "`model` must be a string",
                                  "send `{\"model\": \"provider:model\"}` or no body")
        if model is not None and not _is_unicode(model):
            return error_response(400, "session/body-invalid", "`model` holds a lone "
                                  "surrogate, which is no Unicode text",
                                  "send `{\"model\": \"provider:model\"}` or no body")
        try:  # opened to check the model now; its turns open it from the store, as any
            session = self._open(None, model, None)  # turn of any process does
            storage = self.storage
            await asyncio.to_thread(storage.create, session.model, session.id)
        except EveBuildError as exc:
            if model is not None and _names_a_bad_model(exc):  # the client's mistake
                return _from_error(exc, status=400)
            return _from_error(exc)
        return JSONResponse({"id": session.id, "model": session.model}, status_code=201)

    async def message(self, request: Request) -> Response:
        session_id = request.path_params["id"]
        body = await _read_body(request, required=True)
        if isinstance(body, Response):
            return body
        text = body.get("text")
        if not isinstance(text, str) or not text:
            return error_response(400, "session/body-invalid", "the body needs `text`: a "
                                  "non-empty string", "send `{\"text\": \"hello\"}`")
        if not _is_unicode(text):
            return error_response(400, "session/body-invalid", "`text` holds a lone "
                                  "surrogate (`\\ud800`), which is no Unicode text",
                                  "send the text as valid UTF-16 pairs or plain UTF-8")
        try:
            storage = self.storage
            claim = await asyncio.to_thread(storage.claim, session_id)
        except EveBuildError as exc:
            return _from_error(exc)
        try:
            session = await self._session(session_id, claim.turns)
        except BaseException as exc:
            await asyncio.shield(asyncio.to_thread(storage.release, claim))
            if isinstance(exc, EveBuildError):
                return _from_error(exc)
            raise
        from eve_build.session.asking import StoreAsker

        environ = dict(self.environ or {}) or _environ()
        if "text/event-stream" in request.headers.get("accept", ""):
            queue: asyncio.Queue[SessionEvent | None] = asyncio.Queue()
            asker = StoreAsker(storage, session_id, queue.put_nowait, json_mode=False,
                               environ=environ)
            task = asyncio.ensure_future(self._send(session, text, claim, queue.put_nowait,
                                                    asker))
            task.add_done_callback(lambda t: _ended(t, queue))
            return StreamingResponse(_stream(task, queue), media_type="text/event-stream")
        asker = StoreAsker(storage, session_id, lambda _event: None, json_mode=True,
                           environ=environ)
        sending = asyncio.ensure_future(self._send(session, text, claim,
                                                   lambda _event: None, asker))
        asker.task = sending
        try:
            result = await _unless_disconnected(request, sending)
        except EveBuildError as exc:
            return _from_error(exc)
        except asyncio.CancelledError:
            if asker.pending is None:
                raise
            return error_response(  # stopped at a question: nothing of it was kept
                409, "session/input-required", f"the message needs an answer: "
                f"{asker.pending.message}", "post the answer to "
                f"`{SESSIONS_PATH}/{session_id}/inputs/{asker.pending.id}`, then send the "
                "message again (or send it with `Accept: text/event-stream` to answer as it "
                "runs)", input=asker.pending.to_json())
        if result is None:  # nobody reads this answer
            return Response(status_code=499)
        return JSONResponse(result.to_json())

    async def answer(self, request: Request) -> Response:
        """An answer to a question of a session (any worker: it goes through the store)."""
        from eve_build.session.asking import answer_input

        body = await _read_body(request, required=True)
        if isinstance(body, Response):
            return body
        try:
            storage = self.storage
            status, reply = await asyncio.to_thread(
                answer_input, storage, request.path_params["id"],
                request.path_params["input_id"], body)
        except EveBuildError as exc:
            return _from_error(exc)
        if status != 200:
            return error_response(status, **reply)
        return JSONResponse(reply)

    def _open(self, session_id: str | None, model: str | None, recorded: str | None) -> Any:
        from eve_build.session.extra import require_agent_extra

        require_agent_extra()
        from eve_build.session.run import open_session
        from eve_build.session.storage import StoredSession

        generation = self.host.current
        if generation is None:
            raise EveBuildError("the agent has no good build yet", "see `eve dev`")
        from eve_build.session.engine import SessionOptions

        options = SessionOptions(model=model, recorded=recorded,
                                 environ=dict(self.environ or {})
                                 or dict(generation.agent.environ) or _environ())
        stored = StoredSession(session_id, recorded) if session_id else None
        return open_session(generation.agent, self.root, stored, options)

    def _keep(self, session: Any, turns: int) -> None:
        self.sessions[session.id] = _Opened(session, turns)
        self.sessions.move_to_end(session.id)
        while len(self.sessions) > OPEN_SESSIONS:
            self.sessions.popitem(last=False)

    async def _session(self, session_id: str, turns: int) -> Any:
        """The opened session at the store's turn `turns` (claimed): the cached one when
        it is at that turn, else reopened from the store."""
        opened = self.sessions.get(session_id)
        if opened is not None and opened.turns == turns:
            self.sessions.move_to_end(session_id)
            return opened.session
        from pydantic_ai.messages import ModelMessagesTypeAdapter

        stored = await asyncio.to_thread(self.storage.require, session_id)
        session = self._open(session_id, None, stored.model)
        session.history = list(ModelMessagesTypeAdapter.validate_python(stored.messages))
        self._keep(session, stored.turns)
        return session

    async def _send(self, session: Any, text: str, claim: SessionClaim,
                    listener: Any, asker: Any) -> Any:
        """The turn under `claim` (renewed while it runs, released after, also while a
        question waits for its answer), committed on top of the turn it started from; a
        failed turn drops the opened session. `asker` answers its `ctx.ask`."""
        from eve_build.runtime.approval import asking_approver
        from eve_build.sdk.interaction import interacting
        from eve_build.session.run import commit_session

        storage = self.storage
        try:
            async with storage.keeping(claim):
                with interacting(ask=asker, loop=asyncio.get_running_loop()):
                    result = await session.asend(text, listener=listener,
                                                 approver=asking_approver(asker))
                turns = await asyncio.to_thread(commit_session, storage, session, True,
                                                after=claim.turns)
        except BaseException:
            if (opened := self.sessions.get(session.id)) and opened.session is session:
                del self.sessions[session.id]  # its history may hold half a turn
            raise
        self._keep(session, turns)
        return result


def _ended(task: asyncio.Future[Any], queue: asyncio.Queue[SessionEvent | None]) -> None:
    queue.put_nowait(None)
    if not task.cancelled():
        task.exception()  # retrieved here too: the client may have left before the end


async def _stream(task: asyncio.Future[Any], queue: asyncio.Queue[SessionEvent | None]
                  ) -> AsyncIterator[str]:
    """The turn's events as SSE, then its reply; a client that hangs up (starlette closes
    the stream) cancels the turn, which then commits nothing and releases its claim."""
    try:
        while (event := await queue.get()) is not None:
            yield _sse(event.kind, event.data)
    finally:
        task.cancel()
    try:
        result = task.result()
    except EveBuildError as exc:
        yield _sse("error", {"status": _describe(exc)[0], **_describe(exc)[1]})
        return
    yield _sse("reply", result.to_json())


async def _unless_disconnected(request: Request, work: Coroutine[Any, Any, T] | asyncio.Future[T]
                               ) -> T | None:
    """`await work`, or None when the client hangs up first: `work` is then cancelled
    (the body is read, so the next ASGI message is `http.disconnect`)."""
    task = asyncio.ensure_future(work)
    hung_up = False

    async def watch() -> None:
        nonlocal hung_up
        while (await request.receive())["type"] != "http.disconnect":
            pass
        hung_up = True
        task.cancel()

    watcher = asyncio.ensure_future(watch())
    try:
        return await task
    except asyncio.CancelledError:
        if not hung_up:
            raise  # the server itself is stopping
        return None
    finally:
        watcher.cancel()
        task.cancel()


def _sse(kind: str, data: Any) -> str:
    return f"event: {kind}\ndata: {json.dumps(data, default=str)}\n\n"


def _environ() -> dict[str, str]:
    import os

    return dict(os.environ)


async def _read_body(request: Request, *, required: bool) -> dict[str, Any] | Response:
    raw = await request.body()
    if not raw.strip() and not required:
        return {}
    try:
        body = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        return error_response(400, "session/body-invalid", f"the body is not JSON: {exc}",
                              "send a JSON object, e.g. `{\"text\": \"hello\"}`")
    except RecursionError:
        return error_response(400, "session/body-invalid", "the body is JSON nested too "
                              "deeply to read", "send a JSON object, e.g. "
                              "`{\"text\": \"hello\"}`")
    if not isinstance(body, dict):
        return error_response(400, "session/body-invalid", "the body must be a JSON object",
                              "send `{\"text\": \"hello\"}`")
    return body
