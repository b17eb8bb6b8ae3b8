"""What the model is given for a tool's result: its content, mapped to pydantic-ai.

One function, `derive_model_return`, owns the mapping (the toolset calls it for every
ok result):

- a plain value (content that is only the value's JSON text) is returned as the value,
  exactly as before content existed;
- otherwise the parts, in order, as the tool result's content: text parts as text,
  images and audio as pydantic-ai `BinaryContent` when the model's profile accepts that
  kind and media type, else a short text stand-in naming the part
  (`[image/png, 1234 bytes]`); a text resource as its uri and text, a binary one by
  its stand-in. The details ride along as the `ToolReturn`'s metadata (kept in the
  message history, never sent to the model).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic_ai.messages import BinaryContent, ToolReturn

from eve_build.runtime.content import content_to_json, describe_part, is_plain
from eve_build.sdk.results import AudioPart, ImagePart, ResourcePart, TextPart, ToolResult


def derive_model_return(result: ToolResult, profile: Any) -> Any:
    """What the model sees for an ok `result`, given the model's profile (None: accept)."""
    if is_plain(result.content, result.value):
        return result.value
    shown: list[Any] = []
    for part in result.content:
        if isinstance(part, TextPart):
            shown.append(part.text)
        elif isinstance(part, ResourcePart):
            shown.append(f"[resource {part.uri}]\n{part.text}" if part.text is not None
                         else describe_part(part))
        elif accepts(profile, part):
            shown.append(BinaryContent(data=bytes(part.data), media_type=part.mime_type))
        else:
            shown.append(describe_part(part))
    return ToolReturn(return_value=shown, metadata=result.value)


def accepts(profile: Any, part: ImagePart | AudioPart) -> bool:
    """Whether the model takes this image or audio as a file (its profile says so)."""
    if profile is None:
        return True
    kind = "image" if isinstance(part, ImagePart) else "audio_file"
    if not _read(profile, f"supports_{kind}_input", True):
        return False
    types = _read(profile, f"supported_{kind.removesuffix('_file')}_media_types", None)
    return not types or part.mime_type in types


def _read(profile: Any, key: str, default: Any) -> Any:
    """A profile flag (a mapping in this pydantic-ai, an object in earlier ones)."""
    if isinstance(profile, Mapping):
        return profile.get(key, default)
    return getattr(profile, key, default)


def derive_record_content(result: ToolResult) -> list[dict[str, Any]] | None:
    """The content for `toolCalls` and `tool.end` (None for a plain value: the result
    says it all)."""
    if not result.ok or is_plain(result.content, result.value):
        return None
    return content_to_json(result.content)
