"""What an error answer of `eve serve` looks like: one JSON shape for every route.

    {"error": {"code": "session/body-invalid", "message": "...", "hint": "..."}}

Channels, the session routes, health, `/mcp`'s admission, the barrier (413, 500) and
starlette's own 404 and 405 all answer through `error_response`, so a client reads
`body["error"]["code"]` whatever it called (docs/serving.md, "Error answers").
`code` is a diagnostic code (docs/reference/diagnostics.md), `message` says what
went wrong, `hint` what to do (may be empty). A route adds what names the failing
part inside the same object (`"channel": "crm__webhook"`, `"limit": 1048576`).
The message never holds an exception's text (it may hold data): the log has it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

ERROR_KEYS = ("code", "message", "hint")
"""The members every error object has (strings); a route may add its own."""

_STARLETTE_ERRORS = {
    404: ("serve/route-unknown", "nothing is served at this path",
          "check the path: `GET /.eve/health` lists the channels"),
    405: ("serve/method-not-allowed", "this path is not served for this method",
          "check the method: `GET /.eve/health` lists each channel's"),
}


def error_body(code: str, message: str, hint: str = "", **context: Any) -> dict[str, Any]:
    """The body of an error answer (see the module docstring)."""
    return {"error": {"code": code, "message": message, "hint": hint, **context}}


def error_response(status: int, code: str, message: str, hint: str = "", *,
                   headers: Mapping[str, str] | None = None, **context: Any) -> JSONResponse:
    """An error answer with that status in the one shape."""
    return JSONResponse(error_body(code, message, hint, **context), status_code=status,
                        headers=headers)


async def answer_http_exception(_request: Request, exc: Exception) -> Response:
    """starlette's own errors (no route, wrong method) in the one shape."""
    status = exc.status_code if isinstance(exc, HTTPException) else 500
    code, message, hint = _STARLETTE_ERRORS.get(
        status, ("serve/internal-error", "the server failed to answer; its log says why", ""))
    headers = dict(exc.headers or {}) if isinstance(exc, HTTPException) else None
    return error_response(status, code, message, hint, headers=headers)
