"""The request a channel's `handle(request, ctx)` receives.

The host reads the body before it calls the handler, so a sync handler (run on a
worker thread) can use `request.content` / `request.parse_json()`, and an async
one `await request.body()` / `await request.json()`. A body that is not JSON
raises RequestBodyError, which the host answers with 400 unless the handler
catches it (415 when its Content-Type is not JSON).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from starlette.requests import Request

CHANNEL_TIMEOUT = 30.0
"""Seconds a channel handler may take before the host answers 500 (`--channel-timeout`)."""
MAX_BODY = 1024 * 1024
"""Bytes a request body may hold by default (`--max-body`; eve_build.serve.barrier)."""


class RequestBodyError(ValueError):
    """`request.json()` on a body that is not JSON; the message says why, `status` is
    the answer (400, or 415 when the Content-Type says it is not JSON)."""

    def __init__(self, message: str, *, status: int = 400, code: str = "serve/body-invalid",
                 hint: str = "send a JSON body with `Content-Type: application/json`") -> None:
        super().__init__(message)
        self.status, self.code, self.hint = status, code, hint


@dataclass(frozen=True)
class ChannelRequest:
    """One HTTP request to a channel. `headers` are case-insensitive.

    Headers, query and path parameters are read from the server's request when a
    handler first asks for them (a channel is on the hot path).
    """

    method: str
    path: str
    content: bytes = b""
    channel: str = ""
    source: Request | None = field(default=None, repr=False)

    @cached_property
    def headers(self) -> Mapping[str, str]:
        return {} if self.source is None else self.source.headers

    @cached_property
    def query(self) -> Mapping[str, str]:
        return {} if self.source is None else self.source.query_params

    @cached_property
    def path_params(self) -> Mapping[str, Any]:
        return {} if self.source is None else self.source.path_params

    @property
    def text(self) -> str:
        """The body decoded as UTF-8 (undecodable bytes replaced)."""
        return self.content.decode("utf-8", errors="replace")

    async def body(self) -> bytes:
        return self.content

    async def json(self) -> Any:
        """The body parsed as JSON (raises RequestBodyError)."""
        return self.parse_json()

    def parse_json(self) -> Any:
        """The body parsed as JSON, for sync handlers (raises RequestBodyError).

        A body whose Content-Type names something else (`text/plain`, a form) is refused
        (415) even when it parses: a page on another site can send those without asking
        (eve_build.serve.admission). A body with no Content-Type is read as JSON."""
        from eve_build.serve.admission import is_json_media_type

        declared = self.headers.get("content-type")
        if declared and not is_json_media_type(declared):
            raise RequestBodyError(f"the request body is sent as `{declared}`, not JSON",
                                   status=415, code="serve/content-type-refused")
        if not self.content.strip():
            raise RequestBodyError("the request body is empty, not JSON")
        try:
            return json.loads(self.content)
        except UnicodeDecodeError:
            raise RequestBodyError("the request body is not UTF-8 text, so not JSON") from None
        except json.JSONDecodeError as exc:
            raise RequestBodyError(f"the request body is not valid JSON: {exc.msg} (line "
                                   f"{exc.lineno}, column {exc.colno})") from None
        except RecursionError:
            raise RequestBodyError("the request body is JSON nested too deeply to read"
                                   ) from None
