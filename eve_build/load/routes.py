"""Channel routes claimed twice inside one extension, refused at its own build.

A consuming agent serves every channel of every mount on one server, so two channels
of one extension on the same method and route could never both be served: every
consumer would fail with `mount/route-conflict` against its mount file. The author's
build is where the fix belongs, so it is refused there.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from eve_build.diagnostics import Diagnostic, error

Record = dict[str, Any]


def find_duplicate_routes(contributions: Record, display: str) -> list[Diagnostic]:
    """An error for each channel whose method and route an earlier channel claimed."""
    claimed: dict[tuple[str, str], Record] = {}
    found: list[Diagnostic] = []
    for channel in _walk_channels(contributions):
        key = (str(channel.get("method", "POST")), str(channel.get("route")))
        first = claimed.setdefault(key, channel)
        if first is channel:
            continue
        found.append(error(
            "channel/route-duplicate", f"{display}{channel['file']}",
            f"the channels `{first['name']}` (`{display}{first['file']}`) and "
            f"`{channel['name']}` (`{display}{channel['file']}`) both claim "
            f"`{key[0]} {key[1]}`",
            "give each channel its own route (`define_channel(route=...)`) or method: "
            "an agent serves every channel of a mount on one server",
        ))
    return found


def _walk_channels(contributions: Record) -> Iterator[Record]:
    """Channels of the tree and of every subagent below it (files are source-relative)."""
    yield from contributions.get("channels", [])
    for sub in contributions.get("subagents", []):
        yield from _walk_channels(sub.get("contributions", {}))
