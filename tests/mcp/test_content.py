"""A tool's content parts over MCP: content blocks, and the details as structuredContent."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

from mcp import Client, types

from tests.mcp.test_stdio import run_session

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 24
WAV = b"RIFF\x24\x00\x00\x00WAVEfmt " + b"\x00" * 16
RICH = '''\
from pydantic import BaseModel

from eve_build.sdk import Spec, ToolResult, audio, define_tool, image, resource, text

PNG = b"\\x89PNG\\r\\n\\x1a\\n" + b"\\x00" * 24
WAV = b"RIFF\\x24\\x00\\x00\\x00WAVEfmt " + b"\\x00" * 16


class Nothing(BaseModel):
    pass


def media(input, ctx):
    return ToolResult(content=[text("all of it"), image(PNG, "image/png"),
                               audio(WAV, "audio/wav"),
                               resource("file:///notes.txt", text="n", mime_type="text/plain"),
                               resource("file:///raw.bin", data=b"\\x01\\x02")],
                      details={"parts": 5})


def liar(input, ctx):
    return ToolResult(content=[image(b"not an image", "image/jpeg")])


def setup(ctx):
    return Spec(tools={"media": define_tool(description="media", input=Nothing, execute=media),
                       "liar": define_tool(description="liar", input=Nothing, execute=liar)})
'''


def test_content_parts_become_mcp_blocks(mcp_app: Path, eve_env: Any, tmp_path: Path) -> None:
    rich = tmp_path / "rich.py"
    rich.write_text(RICH)

    async def scenario(client: Client) -> Any:
        return (await client.call_tool("media", {}), await client.call_tool("liar", {}))

    media, liar = run_session(mcp_app, eve_env(), tmp_path / "err", scenario, "-e", str(rich))
    assert not media.is_error
    text, picture, sound, notes, raw = media.content
    assert isinstance(text, types.TextContent) and text.text == "all of it"
    assert isinstance(picture, types.ImageContent) and picture.mime_type == "image/png"
    assert base64.b64decode(picture.data) == PNG
    assert isinstance(sound, types.AudioContent) and base64.b64decode(sound.data) == WAV
    assert isinstance(notes, types.EmbeddedResource)
    assert isinstance(notes.resource, types.TextResourceContents)
    assert (str(notes.resource.uri), notes.resource.text) == ("file:///notes.txt", "n")
    assert isinstance(raw, types.EmbeddedResource)
    assert isinstance(raw.resource, types.BlobResourceContents)
    assert base64.b64decode(raw.resource.blob) == b"\x01\x02"
    assert media.structured_content == {"parts": 5}

    assert liar.is_error
    assert "`liar` returned content part 1: its bytes are not image/jpeg" in (
        liar.content[0].text if isinstance(liar.content[0], types.TextContent) else "")
