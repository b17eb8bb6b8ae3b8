"""The outer layer of `eve serve`: bounded request bodies, sendable responses, no stray faults.

    app = Starlette(..., middleware=[Middleware(Barrier, max_body=MAX_BODY)])

- **Bodies**: a declared `Content-Length` above `max_body` is answered 413 before a
  byte of the body is read; a chunked (or lying) body is counted while it streams,
  and the message that passes the limit is never handed to the app: the read raises
  inside the app, whatever the app answers then is dropped, and the client gets the
  413. uvicorn stops reading a connection whose app does not read (flow control),
  so memory stays bounded by the limit plus one chunk.
- **Responses**: a start message whose status is not 100-599 or whose headers hold
  CR, LF or NUL is replaced by a 500 (`serve/response-invalid`) before uvicorn sees
  it (it would drop the connection and log a traceback).
- **Faults**: an exception that escapes every route is one redacted log line
  (`serve/internal-error`) and a 500 JSON body when nothing was sent yet; the
  traceback is logged at DEBUG only (eve_build.serve.faults).
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from eve_build.serve.faults import fault_response, find_response_problem, log_fault
from eve_build.serve.request import MAX_BODY


class BodyTooLargeError(Exception):
    """The body passed the limit; raised into the app by its `receive`."""


class ResponseInvalidError(Exception):
    """The app tried to start a response that cannot go on the wire."""


class Barrier:
    """ASGI middleware around the whole app (see the module docstring)."""

    def __init__(self, app: ASGIApp, max_body: int = MAX_BODY) -> None:
        self.app = app
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        exchange = _Exchange(scope, receive, send, self.max_body)
        declared = exchange.declared_length()
        if declared is not None and declared > self.max_body:
            await exchange.refuse_body(f"its Content-Length is {declared} bytes")
            return
        try:
            await self.app(scope, exchange.receive, exchange.send)
        except Exception as exc:  # a route's fault must not reach uvicorn (traceback, drop)
            if not exchange.too_large:
                await exchange.fail(exc)
        if exchange.too_large and not exchange.started:
            await exchange.refuse_body(f"it passed {self.max_body} bytes while it streamed")


class _Exchange:
    """One request's receive and send, counted and checked."""

    def __init__(self, scope: Scope, receive: Receive, send: Send, limit: int) -> None:
        self.scope, self._receive, self._send, self.limit = scope, receive, send, limit
        self.received = 0
        self.too_large = False
        self.started = False

    def where(self) -> str:
        return f"{self.scope.get('method', '')} {self.scope.get('path', '')}"

    def declared_length(self) -> int | None:
        for name, value in self.scope.get("headers", ()):
            if name == b"content-length":
                try:
                    return int(value)
                except ValueError:
                    return None  # h11 refuses such a request before it gets here
        return None

    async def receive(self) -> Message:
        if self.too_large:
            raise BodyTooLargeError(f"the request body passed {self.limit} bytes")
        message = await self._receive()
        if message["type"] == "http.request":
            self.received += len(message.get("body", b""))
            if self.received > self.limit:
                self.too_large = True
                raise BodyTooLargeError(f"the request body passed {self.limit} bytes")
        return message

    async def send(self, message: Message) -> None:
        if self.too_large:
            return  # the app's answer to a body it never got whole: the 413 replaces it
        if message["type"] == "http.response.start":
            problem = find_response_problem(message.get("status"), message.get("headers"))
            if problem is not None:
                raise ResponseInvalidError(problem)
            self.started = True
        await self._send(message)

    async def refuse_body(self, why: str) -> None:
        log_fault(self.where(), 413, "serve/body-too-large", f"the request body is too "
                  f"large: {why}; the limit is {self.limit} bytes (`--max-body`)")
        response = fault_response(
            "serve/body-too-large", f"the request body is larger than {self.limit} bytes",
            status=413, hint="send a smaller body, or start the server with a larger "
            "`--max-body`", limit=self.limit)
        response.headers["connection"] = "close"
        await response(self.scope, self._receive_nothing, self._send)

    async def fail(self, exc: Exception) -> None:
        from eve_build.errors import describe_error

        if isinstance(exc, ResponseInvalidError):
            code, reason = "serve/response-invalid", f"the response cannot be sent: {exc}"
        else:
            code, reason = "serve/internal-error", f"the route raised {describe_error(exc)}"
        log_fault(self.where(), 500, code, reason, exc)
        if self.started:
            return  # half a response is out: uvicorn closes the connection
        self.started = True
        await fault_response(code, "the server failed to answer"
                             )(self.scope, self._receive_nothing, self._send)

    async def _receive_nothing(self) -> Message:
        return {"type": "http.disconnect"}
