"""What a connection's tools look like inside the agent: an input model carrying the
server's JSON Schema, the value a `tools/call` result becomes, and the mapping that
puts a tree's own tools before its connections' (opened only when needed).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, ClassVar
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict

from eve_build.runtime.tools import ToolCallError, ToolEntry

if TYPE_CHECKING:
    from mcp import types


class RemoteInput(BaseModel):
    """Arguments of a connection's tool: passed on; the server checks them."""

    model_config = ConfigDict(extra="allow")
    remote_schema: ClassVar[dict[str, Any]] = {}

    @classmethod
    def model_json_schema(cls, *_args: Any, **_kwargs: Any) -> dict[str, Any]:
        return dict(cls.remote_schema)


def derive_remote_value(result: types.CallToolResult) -> Any:
    """A `tools/call` result as a tool value: its structured content, else its one text,
    else its content blocks as JSON; an error result raises ToolCallError with its text."""
    from mcp import types

    texts = [block.text for block in result.content if isinstance(block, types.TextContent)]
    if result.is_error:
        raise ToolCallError("\n".join(texts) or "the MCP server answered an error")
    if result.structured_content is not None:
        return result.structured_content
    if len(result.content) == 1 and texts:
        return texts[0]
    if not result.content:
        return None
    return [block.model_dump(mode="json", by_alias=True, exclude_none=True)
            for block in result.content]


class ConnectedTools(Mapping[str, ToolEntry]):
    """A tree's own tools, then its connections' (loaded the first time they are needed:
    a name found among its own tools never opens a connection)."""

    def __init__(self, own: Mapping[str, ToolEntry],
                 load: Callable[[], Mapping[str, ToolEntry]]) -> None:
        self._own = own
        self._load = load

    def __getitem__(self, name: str) -> ToolEntry:
        if name in self._own:
            return self._own[name]
        return self._load()[name]

    def __iter__(self) -> Iterator[str]:
        yield from self._own
        yield from (name for name in self._load() if name not in self._own)

    def __len__(self) -> int:
        return len(self._own) + sum(1 for name in self._load() if name not in self._own)


def is_http_url(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme in ("http", "https") and bool(parts.hostname)
