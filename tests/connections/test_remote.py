"""A `tools/call` result as the value of a connection tool."""

from __future__ import annotations

import pytest
from mcp import types

from eve_build.connections.remote import derive_remote_value
from eve_build.runtime.tools import ToolCallError


def text(value: str) -> types.TextContent:
    return types.TextContent(type="text", text=value)


def test_structured_content_wins_over_its_text() -> None:
    result = types.CallToolResult(content=[text('{"a": 1}')], structured_content={"a": 1})
    assert derive_remote_value(result) == {"a": 1}


def test_one_text_is_a_str_and_no_content_is_none() -> None:
    assert derive_remote_value(types.CallToolResult(content=[text("plain")])) == "plain"
    assert derive_remote_value(types.CallToolResult(content=[])) is None


def test_other_content_is_its_blocks_as_json() -> None:
    image = types.ImageContent(type="image", data="aGk=", mime_type="image/png")
    value = derive_remote_value(types.CallToolResult(content=[text("a chart"), image]))
    assert value == [{"type": "text", "text": "a chart"},
                     {"type": "image", "data": "aGk=", "mimeType": "image/png"}]


def test_an_error_result_fails_with_its_text() -> None:
    with pytest.raises(ToolCallError, match=r"^no such record$"):
        derive_remote_value(types.CallToolResult(content=[text("no such record")],
                                                 is_error=True))
    with pytest.raises(ToolCallError, match="answered an error"):
        derive_remote_value(types.CallToolResult(content=[], is_error=True))
