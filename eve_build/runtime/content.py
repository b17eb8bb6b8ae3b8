"""Content parts as the host receives them: checked once, then shown by each surface.

A tool's `execute` returns a plain JSON value or a `ToolResult(content=[...],
details=...)`. This module owns what the host does with the parts:

- `check_content(tool, parts)`: every part is a `text`/`image`/`audio`/`resource` part
  whose fields hold what they say (an image's bytes start like its declared type, a
  resource has its text or its bytes); a part that does not is a `ContentError` naming
  the tool and the fix, and the call fails with it;
- `derive_content(value)`: the content of a plain value (its JSON text; a `str` as
  itself);
- `is_plain(content, details)`: the content is only what `derive_content` makes of the
  details (the tool returned a plain value, or the same thing as one);
- `content_to_json(parts)`: the parts as JSON (`eve call --json`, `eve run --json`, HTTP):
  `{"type": "text", "text"}`, `{"type": "image" | "audio", "mimeType", "data"}` (base64),
  `{"type": "resource", "uri", "mimeType", "text" | "data"}`;
- `describe_part(part)`: the short stand-in naming a part (`[image/png, 1234 bytes]`)
  for a reader that cannot take it.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Sequence
from typing import Any

from eve_build.sdk.results import AudioPart, ContentPart, ImagePart, ResourcePart, TextPart

PART_TYPES = (TextPart, ImagePart, AudioPart, ResourcePart)
BUILDERS = "build parts with text(), image(), audio() or resource() from eve_build.sdk"

# (mime types, does the data look like one of them)
_SIGNATURES: tuple[tuple[frozenset[str], Any], ...] = (
    (frozenset({"image/png"}), lambda d: d.startswith(b"\x89PNG\r\n\x1a\n")),
    (frozenset({"image/jpeg", "image/jpg"}), lambda d: d.startswith(b"\xff\xd8\xff")),
    (frozenset({"image/gif"}), lambda d: d[:6] in (b"GIF87a", b"GIF89a")),
    (frozenset({"image/webp"}), lambda d: d[:4] == b"RIFF" and d[8:12] == b"WEBP"),
    (frozenset({"image/bmp"}), lambda d: d.startswith(b"BM")),
    (frozenset({"audio/wav", "audio/x-wav", "audio/wave", "audio/vnd.wave"}),
     lambda d: d[:4] == b"RIFF" and d[8:12] == b"WAVE"),
    (frozenset({"audio/mpeg", "audio/mp3"}),
     lambda d: d.startswith(b"ID3") or (len(d) > 1 and d[0] == 0xFF and d[1] & 0xE0 == 0xE0)),
    (frozenset({"audio/ogg", "audio/opus"}), lambda d: d.startswith(b"OggS")),
    (frozenset({"audio/flac", "audio/x-flac"}), lambda d: d.startswith(b"fLaC")),
    (frozenset({"audio/aac"}), lambda d: len(d) > 1 and d[0] == 0xFF and d[1] & 0xF6 == 0xF0),
    (frozenset({"audio/mp4", "audio/m4a", "audio/x-m4a"}), lambda d: d[4:8] == b"ftyp"),
    (frozenset({"audio/webm"}), lambda d: d.startswith(b"\x1a\x45\xdf\xa3")),
)
_KNOWN = {mime: looks for mimes, looks in _SIGNATURES for mime in mimes}


class ContentError(ValueError):
    """A content part the host cannot take; the message names the tool and the fix."""


def check_content(tool: str, parts: object) -> tuple[ContentPart, ...]:
    """The parts as a tuple, each checked; the first bad one is a ContentError."""
    if isinstance(parts, str | bytes) or not isinstance(parts, Sequence):
        raise ContentError(f"`{tool}` returned ToolResult(content=...) of type "
                           f"{type(parts).__name__}, not a list of parts; {BUILDERS}")
    return tuple(_check_part(tool, index, part) for index, part in enumerate(parts))


def _check_part(tool: str, index: int, part: object) -> ContentPart:
    where = f"`{tool}` returned content part {index + 1}"
    if not isinstance(part, PART_TYPES):
        raise ContentError(f"{where} of unknown type {type(part).__name__}; {BUILDERS}")
    if isinstance(part, TextPart):
        if not isinstance(part.text, str):
            raise ContentError(f"{where}: text() takes a str, not {type(part.text).__name__}")
        return part
    if isinstance(part, ResourcePart):
        return _check_resource(where, part)
    kind = part.kind
    if not isinstance(part.mime_type, str) or not part.mime_type.startswith(f"{kind}/"):
        raise ContentError(f"{where}: {kind}() needs a mime type starting with `{kind}/`, "
                           f"not {part.mime_type!r}; pass it as {kind}(data, \"{kind}/...\")")
    data = _check_bytes(where, kind, part.data)
    if not data:
        raise ContentError(f"{where}: the {kind} is empty (0 bytes); return its bytes")
    looks = _KNOWN.get(part.mime_type.lower())
    if looks is not None and not looks(data):
        found = sniff(data)
        said = f"they look like {found}" if found else "they do not start like one"
        raise ContentError(f"{where}: its bytes are not {part.mime_type} ({said}); pass the "
                           f"type the bytes really are, or convert them")
    return part


def _check_resource(where: str, part: ResourcePart) -> ResourcePart:
    if not isinstance(part.uri, str) or not part.uri:
        raise ContentError(f"{where}: resource() needs a uri (a non-empty str)")
    if (part.text is None) == (part.data is None):
        has = "both text and data" if part.text is not None else "neither text nor data"
        raise ContentError(f"{where}: resource({part.uri!r}) has {has}; give it "
                           "`text=` (a str) or `data=` (bytes), one of them")
    if part.text is not None and not isinstance(part.text, str):
        raise ContentError(f"{where}: resource({part.uri!r}, text=...) takes a str, not "
                           f"{type(part.text).__name__}")
    if part.data is not None:
        _check_bytes(where, "resource", part.data)
    if part.mime_type is not None and not isinstance(part.mime_type, str):
        raise ContentError(f"{where}: resource({part.uri!r}, mime_type=...) takes a str")
    return part


def _check_bytes(where: str, kind: str, data: object) -> bytes:
    if not isinstance(data, bytes | bytearray | memoryview):
        raise ContentError(f"{where}: the {kind}'s data is {type(data).__name__}, not bytes; "
                           "pass the raw bytes (decode base64 text first)")
    return bytes(data)


def sniff(data: bytes) -> str | None:
    """The first known mime type `data` starts like, if any."""
    for mimes, looks in _SIGNATURES:
        if looks(data):
            return sorted(mimes)[0]
    return None


def derive_text(value: Any) -> str:
    """What a plain value reads as: a `str` as itself, anything else as its JSON text."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


def derive_content(value: Any) -> tuple[ContentPart, ...]:
    """The content of a plain value: one text part with its text."""
    return (TextPart(derive_text(value)),)


def is_plain(content: Sequence[ContentPart], details: Any) -> bool:
    """True when `content` says nothing the details do not (a plain value's content)."""
    return not content or tuple(content) == derive_content(details)


def content_text(parts: Sequence[ContentPart]) -> str:
    """The parts as one text: text parts as they are, others by their stand-in."""
    return "\n".join(part.text if isinstance(part, TextPart) else describe_part(part)
                     for part in parts)


def describe_part(part: ContentPart) -> str:
    """A short stand-in naming a part a reader cannot take: `[image/png, 1234 bytes]`."""
    if isinstance(part, TextPart):
        return part.text
    if isinstance(part, ResourcePart):
        size = (f"{len(part.text)} characters" if part.text is not None
                else f"{len(part.data or b'')} bytes")
        return f"[resource {part.uri}, {part.mime_type or 'no type'}, {size}]"
    return f"[{part.mime_type}, {len(part.data)} bytes]"


def content_to_json(parts: Sequence[ContentPart]) -> list[dict[str, Any]]:
    """The parts as JSON objects (bytes as base64)."""
    shown: list[dict[str, Any]] = []
    for part in parts:
        if isinstance(part, TextPart):
            shown.append({"type": "text", "text": part.text})
        elif isinstance(part, ResourcePart):
            item: dict[str, Any] = {"type": "resource", "uri": part.uri,
                                    "mimeType": part.mime_type}
            if part.text is not None:
                item["text"] = part.text
            else:
                item["data"] = _b64(part.data or b"")
            shown.append(item)
        else:
            shown.append({"type": part.kind, "mimeType": part.mime_type,
                          "data": _b64(part.data)})
    return shown


def _b64(data: bytes) -> str:
    return base64.b64encode(bytes(data)).decode("ascii")


def content_from_json(items: Any) -> tuple[ContentPart, ...]:
    """`content_to_json`'s objects as the SDK's parts again (a node's answer), or a
    ContentError naming the first item that is not a part."""
    if not isinstance(items, list):
        raise ContentError(f"`content` must be a list, not {type(items).__name__}")
    return tuple(_part_from_json(index, item) for index, item in enumerate(items))


def _part_from_json(index: int, item: Any) -> ContentPart:
    where = f"`content[{index}]`"
    kind = item.get("type") if isinstance(item, dict) else None
    if kind == "text" and isinstance(item.get("text"), str):
        return TextPart(item["text"])
    if kind in ("image", "audio") and isinstance(item.get("mimeType"), str):
        data = _bytes_from_b64(where, item.get("data"))
        return (ImagePart if kind == "image" else AudioPart)(data, item["mimeType"])
    if kind == "resource" and isinstance(item.get("uri"), str):
        mime_type = item.get("mimeType")
        if mime_type is not None and not isinstance(mime_type, str):
            raise ContentError(f"{where}: `mimeType` must be a string or null")
        if isinstance(item.get("text"), str) and "data" not in item:
            return ResourcePart(item["uri"], text=item["text"], mime_type=mime_type)
        if "text" not in item:
            return ResourcePart(item["uri"], data=_bytes_from_b64(where, item.get("data")),
                                mime_type=mime_type)
        raise ContentError(f"{where}: a resource has a string `text` or a base64 `data`")
    shown = json.dumps(item, default=str)
    raise ContentError(f"{where} is not a text, image, audio or resource part: "
                       f"{(shown[:80] + ('...' if len(shown) > 80 else ''))!r}")


def _bytes_from_b64(where: str, data: Any) -> bytes:
    if not isinstance(data, str):
        raise ContentError(f"{where}: `data` must be a base64 string")
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise ContentError(f"{where}: `data` is not base64") from None
