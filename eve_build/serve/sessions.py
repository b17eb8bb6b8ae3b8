"""Agent sessions over HTTP (DESIGN section 12), beside the channels of `eve serve`.

    POST /.eve/v1/sessions                 {"model": "openai:gpt-4.1"}?  -> 201 {"id": ...}
    POST /.eve/v1/sessions/{id}/messages   {"text": "..."}              -> the `eve run
                                            --json` body; with `Accept: text/event-stream`,
                                            server-sent events of the turn, then `reply`

Every session runs on the served agent of the current generation (its state is the
served agent's, durable in the store); its messages are its own, kept in the
session store one turn per message. Nobody answers approval prompts over HTTP, so a
tool that asks (`always()`, `once()`) is refused with that reason. Errors are JSON
`{"error": {"code", "message", "hint"}}`: 400 a body that is not the JSON asked for,
404 an unknown session, 409 a session with a message in progress, 502 the model
failed, 504 the message passed EVE_TURN_TIMEOUT, 500 the session cannot start (no
model, no key, the extra missing). A client that hangs up (JSON or SSE) cancels its
message: nothing of it is committed and the session takes the next one at once.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Coroutine, Mapping
from pathlib import Path
from typing import Any, TypeVar

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from eve_build.errors import DiagnosticsError, EveBuildError
from eve_build.serve.generation import Host
from eve_build.session.storage import Storage
from eve_build.session.transcript import SessionEvent

T = TypeVar("T")
SESSIONS_PATH = "/.eve/v1/sessions"
MODEL_FAILURES = ("session/model-unreachable", "session/model-auth", "session/model-rate-limited",
                  "session/model-http-error", "session/model-timeout", "session/model-failed",
                  "session/request-limit")
"""Codes answered 502: the model (not this server) failed the turn."""


def error_response(status: int, code: str, message: str, hint: str = "") -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message, "hint": hint}},
                        status_code=status)


def _describe(exc: EveBuildError) -> tuple[int, dict[str, Any]]:
    first = exc.diagnostics[0] if isinstance(exc, DiagnosticsError) and exc.diagnostics else None
    code = first.code if first is not None else "session/failed"
    status = 404 if code == "session/id-unknown" else 502 if code in MODEL_FAILURES else \
        504 if code == "session/turn-timeout" else 500
    return status, {"error": {"code": code, "message": first.message if first else exc.message,
                              "hint": first.hint if first else exc.hint}}


def _from_error(exc: EveBuildError) -> JSONResponse:
    status, body = _describe(exc)
    return JSONResponse(body, status_code=status)


class SessionRoutes:
    def __init__(self, host: Host, root: Path, storage: Storage | None,
                 environ: Mapping[str, str] | None) -> None:
        """`storage` None: the app's own store is opened at the first session request
        (so `eve dev` never touches a store it does not use)."""
        self.host, self.root, self.environ = host, root, environ
        self._storage, self._opened = storage, False
        self.sessions: dict[str, Any] = {}  # id -> engine Session, opened on first use
        self.busy: set[str] = set()

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
                Route(SESSIONS_PATH + "/{id}/messages", self.message, methods=["POST"])]

    async def create(self, request: Request) -> Response:
        body = await _read_body(request, required=False)
        if isinstance(body, Response):
            return body
        model = body.get("model")
        if model is not None and not isinstance(model, str):
            return error_response(400, "session/body-invalid", "`model` must be a string",
                                  "send `{\"model\": \"provider:model\"}` or no body")
        try:
            session = self._open(None, model)
            self.storage.create(session.model, session.id)
        except EveBuildError as exc:
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
        try:
            session = self.sessions.get(session_id) or self._resume(session_id)
        except EveBuildError as exc:
            return _from_error(exc)
        if session_id in self.busy:
            return error_response(409, "session/busy", f"the session `{session_id}` is still "
                                  "answering a message", "wait for its reply, then send")
        if "text/event-stream" in request.headers.get("accept", ""):
            return StreamingResponse(self._stream(session, text),
                                     media_type="text/event-stream")
        try:
            result = await _unless_disconnected(request, self._send(session, text,
                                                                    lambda _event: None))
        except EveBuildError as exc:
            return _from_error(exc)
        if result is None:  # nobody reads this answer
            return Response(status_code=499)
        return JSONResponse(result.to_json())

    def _open(self, session_id: str | None, model: str | None) -> Any:
        from eve_build.session.extra import require_agent_extra

        require_agent_extra()
        from eve_build.session.run import open_session
        from eve_build.session.storage import StoredSession

        generation = self.host.current
        if generation is None:
            raise EveBuildError("the agent has no good build yet", "see `eve dev`")
        from eve_build.session.engine import SessionOptions

        options = SessionOptions(model=model, environ=dict(self.environ or {}) or _environ())
        stored = StoredSession(session_id, model) if session_id else None
        session = open_session(generation.agent, self.root, stored, options)
        self.sessions[session.id] = session
        return session

    def _resume(self, session_id: str) -> Any:
        from pydantic_ai.messages import ModelMessagesTypeAdapter

        stored = self.storage.require(session_id)
        session = self._open(session_id, stored.model)
        session.history = list(ModelMessagesTypeAdapter.validate_python(stored.messages))
        return session

    async def _send(self, session: Any, text: str, listener: Any) -> Any:
        from eve_build.session.run import commit_session

        self.busy.add(session.id)
        try:
            result = await session.asend(text, listener=listener)
            await asyncio.to_thread(commit_session, self.storage, session, True)
            return result
        finally:
            self.busy.discard(session.id)

    async def _stream(self, session: Any, text: str) -> AsyncIterator[str]:
        queue: asyncio.Queue[SessionEvent | None] = asyncio.Queue()
        task = asyncio.ensure_future(self._send(session, text, queue.put_nowait))
        task.add_done_callback(lambda _t: queue.put_nowait(None))
        try:
            while (event := await queue.get()) is not None:
                yield _sse(event.kind, event.data)
        finally:  # the client hung up (starlette closes the stream): the message stops
            task.cancel()
        try:
            result = task.result()
        except EveBuildError as exc:
            yield _sse("error", {"status": _describe(exc)[0], **_describe(exc)[1]})
            return
        yield _sse("reply", result.to_json())


async def _unless_disconnected(request: Request, work: Coroutine[Any, Any, T]) -> T | None:
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
    if not isinstance(body, dict):
        return error_response(400, "session/body-invalid", "the body must be a JSON object",
                              "send `{\"text\": \"hello\"}`")
    return body
