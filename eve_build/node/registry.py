"""`$EVE_HOME/nodes.json`: the nodes the user registered with `eve ext add`.

    {"formatVersion": 1, "nodes": {"weather": {"path": "/home/me/weather"}}}

Registering is the trust decision (DESIGN.md section 8): a host connects only to
sockets of registered names. The file is written like every output: staged in a
temporary sibling, then renamed over the old one, so a crash never leaves half a file.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from eve_build.errors import EveBuildError
from eve_build.node.paths import registry_path

REGISTRY_FORMAT_VERSION = 1


@dataclass(frozen=True, order=True)
class NodeEntry:
    """One registered node: its name and its project folder (absolute)."""

    name: str
    path: Path


def read_registry(home: Path) -> dict[str, NodeEntry]:
    """The registered nodes by name; an absent file is an empty registry."""
    file = registry_path(home)
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise EveBuildError(f"`{file}` cannot be read: {exc}",
                            "fix or delete the file, then `eve ext add` the nodes again"
                            ) from None
    nodes = data.get("nodes") if isinstance(data, dict) else None
    if not isinstance(nodes, dict) or data.get("formatVersion") != REGISTRY_FORMAT_VERSION:
        raise EveBuildError(f"`{file}` is not a node registry of format "
                            f"{REGISTRY_FORMAT_VERSION}",
                            "fix or delete the file, then `eve ext add` the nodes again")
    found: dict[str, NodeEntry] = {}
    for name, entry in sorted(nodes.items()):
        if isinstance(entry, dict) and isinstance(entry.get("path"), str):
            found[name] = NodeEntry(name, Path(entry["path"]))
    return found


def write_registry(home: Path, nodes: dict[str, NodeEntry]) -> None:
    """Replace `nodes.json` atomically with exactly `nodes`."""
    file = registry_path(home)
    file.parent.mkdir(parents=True, exist_ok=True)
    data = {"formatVersion": REGISTRY_FORMAT_VERSION,
            "nodes": {name: {"path": str(nodes[name].path)} for name in sorted(nodes)}}
    handle, staging = tempfile.mkstemp(prefix=".nodes.json.", dir=file.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(json.dumps(data, indent=2) + "\n")
        Path(staging).replace(file)
    finally:
        Path(staging).unlink(missing_ok=True)
