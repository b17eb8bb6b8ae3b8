"""The wire format between a host and a node: JSON-RPC 2.0, one message per line.

Framing is newline-delimited JSON (`json.dumps` never writes a raw newline), read
with asyncio's `StreamReader.readline` under a size limit; see docs/protocol.md for
why no third-party JSON-RPC package is used. Messages are checked here, so a reply
that is not JSON-RPC 2.0 becomes a ProtocolError and never a KeyError somewhere else.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from eve_build.runtime.content import ContentError, content_from_json
from eve_build.sdk.results import ContentPart

PROTOCOL_VERSION = 1
LINE_LIMIT = 16 * 1024 * 1024
"""The longest message either side accepts (bytes)."""

# methods the host calls on the node
DESCRIBE = "describe"
TOOL_CALL = "tool.call"
HOOK_RUN = "hook.run"
EVENT_DELIVER = "event.deliver"
COMMAND_RUN = "command.run"
SHUTDOWN = "shutdown"
# notifications the node sends while it handles a request
PROGRESS = "tool.progress"
NOTIFY = "ctx.notify"
USER_MESSAGE = "ctx.userMessage"
APPEND_ENTRY = "ctx.appendEntry"
PUBLISH = "ctx.publish"  # {name, data}: the host emits `extension.event` in a session
CUSTOM_MESSAGE = "ctx.customMessage"  # {text, type, data}: shown and stored, not sent

# JSON-RPC 2.0 error codes (the spec's, then ours in the server range)
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
UNKNOWN_NAME = -32001  # no tool, command or hook of that name
HANDLER_FAILED = -32002  # the extension's code raised
CONTENT_INVALID = -32003  # a tool returned a content part the host would refuse


class ProtocolError(Exception):
    """The peer sent something that is not JSON-RPC 2.0 as this protocol uses it."""


class RemoteError(Exception):
    """The node answered a request with a JSON-RPC error."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Message:
    """One checked message: a request (id and method), notification (method) or reply."""

    id: int | str | None
    method: str | None
    params: dict[str, Any]
    result: Any = None
    error: RemoteError | None = None

    @property
    def is_reply(self) -> bool:
        return self.method is None


def encode_request(request_id: int, method: str, params: dict[str, Any]) -> bytes:
    return _line({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})


def encode_notification(method: str, params: dict[str, Any]) -> bytes:
    return _line({"jsonrpc": "2.0", "method": method, "params": params})


def encode_result(request_id: int | str | None, result: Any) -> bytes:
    return _line({"jsonrpc": "2.0", "id": request_id, "result": result})


def encode_error(request_id: int | str | None, code: int, message: str) -> bytes:
    return _line({"jsonrpc": "2.0", "id": request_id,
                  "error": {"code": code, "message": message}})


def decode_message(line: bytes) -> Message:
    """One line as a Message, or a ProtocolError that says what is wrong with it."""
    try:
        data = json.loads(line)
    except ValueError:
        raise ProtocolError(f"not JSON: {_preview(line)}") from None
    except RecursionError:
        raise ProtocolError(f"JSON nested too deeply: {_preview(line)}") from None
    if not isinstance(data, dict) or data.get("jsonrpc") != "2.0":
        raise ProtocolError(f"not a JSON-RPC 2.0 message: {_preview(line)}")
    message_id = data.get("id")
    if message_id is not None and (isinstance(message_id, bool)
                                   or not isinstance(message_id, int | str)):
        raise ProtocolError(f"the id must be a number or a string: {_preview(line)}")
    method = data.get("method")
    if method is not None:
        params = data.get("params", {})
        if not isinstance(method, str) or not isinstance(params, dict):
            raise ProtocolError(f"a request needs a string method and object params: "
                                f"{_preview(line)}")
        return Message(message_id, method, params)
    if ("result" in data) == ("error" in data) or message_id is None:
        raise ProtocolError(f"a reply needs an id and exactly one of result and error: "
                            f"{_preview(line)}")
    if "error" in data:
        error = data["error"]
        if not (isinstance(error, dict) and isinstance(error.get("code"), int)
                and isinstance(error.get("message"), str)):
            raise ProtocolError(f"an error needs an integer code and a message: "
                                f"{_preview(line)}")
        return Message(message_id, None, {}, error=RemoteError(error["code"], error["message"]))
    return Message(message_id, None, {}, result=data["result"])


def decode_content(items: Any) -> tuple[ContentPart, ...]:
    """A `tool.call` result's `content` (the `eve call --json` shape, bytes as base64) as
    the SDK's parts (runtime/content.py reads it), or a ProtocolError naming the first
    item that is not a part."""
    try:
        return content_from_json(items)
    except ContentError as exc:
        raise ProtocolError(str(exc)) from None


def _line(data: dict[str, Any]) -> bytes:
    return json.dumps(data, separators=(",", ":"), default=str).encode() + b"\n"


def _preview(line: bytes) -> str:
    text = line.decode("utf-8", "replace").strip()
    return repr(text[:80] + ("..." if len(text) > 80 else ""))
