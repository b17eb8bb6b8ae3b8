"""What a tool returns and what the host returns for a call: content and details.

A tool's `execute` may return a plain JSON value (as always) or a `ToolResult` built
from content parts:

    from eve_build.sdk import ToolResult, image, text

    return ToolResult(content=[text("the chart"), image(png_bytes, "image/png")],
                      details={"points": 120})

The model sees `content`; the interfaces (`eve call`, `--json`, HTTP, MCP
`structuredContent`) show `details`. A plain value is both: its JSON text is the content
and the value is the details. The host's answer for one call is a `ToolResult` too, with
`name`, `status` and the rest filled in (`value` is another name for `details`).

An `action.result` handler may return `result(value, is_error=...)` to turn a result
into an error or an error into a result.

Layer 1 (foundation): plain data, nothing checked here (the host checks parts).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class TextPart:
    text: str
    kind: str = field(default="text", init=False)


@dataclass(frozen=True)
class ImagePart:
    data: bytes
    mime_type: str
    kind: str = field(default="image", init=False)


@dataclass(frozen=True)
class AudioPart:
    data: bytes
    mime_type: str
    kind: str = field(default="audio", init=False)


@dataclass(frozen=True)
class ResourcePart:
    """An embedded resource: `text` or `data` (bytes), never both, never neither."""

    uri: str
    text: str | None = None
    data: bytes | None = None
    mime_type: str | None = None
    kind: str = field(default="resource", init=False)


ContentPart = TextPart | ImagePart | AudioPart | ResourcePart
CONTENT_KINDS = ("text", "image", "audio", "resource")


def text(value: str) -> TextPart:
    """A text part the model reads."""
    return TextPart(value)


def image(data: bytes, mime_type: str) -> ImagePart:
    """An image part (`image/png`, `image/jpeg`, `image/gif`, `image/webp`)."""
    return ImagePart(data, mime_type)


def audio(data: bytes, mime_type: str) -> AudioPart:
    """An audio part (`audio/wav`, `audio/mpeg`, `audio/ogg`...)."""
    return AudioPart(data, mime_type)


def resource(uri: str, text: str | None = None, data: bytes | None = None,
             mime_type: str | None = None) -> ResourcePart:
    """An embedded resource with its text or its bytes."""
    return ResourcePart(uri, text=text, data=data, mime_type=mime_type)


@dataclass(frozen=True)
class ResultOverride:
    """From an `action.result` handler: this value, as a result or as an error."""

    value: Any
    is_error: bool = False


def result(value: Any, *, is_error: bool = False) -> ResultOverride:
    """From an `action.result` handler: go on with `value`; `is_error=True` makes it an error."""
    return ResultOverride(value, is_error)


@dataclass(frozen=True, kw_only=True)
class ToolResult:
    """A tool's rich return value, and the outcome of one call as the host returns it.

    A tool sets `content` (and optionally `details`, `is_error`). The host fills in
    `name`, `status` ("ok" | "failed" | "blocked" | "refused"), `error`, `identity`
    (the identity of the definition that ran, so a result of the namespaced
    `crm__search` still maps back to the package's `search`), `trace` and `progress`.
    """

    content: Sequence[ContentPart] = ()
    details: Any = None
    is_error: bool = False
    name: str = ""
    status: str = "ok"
    error: str | None = None
    identity: str = ""
    trace: tuple[Mapping[str, Any], ...] = ()
    progress: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def value(self) -> Any:
        """The details (what interfaces show); the name kept from earlier releases."""
        return self.details

    @property
    def reason(self) -> str | None:
        """Why the call failed, was blocked or refused (the same text as `error`)."""
        return self.error
