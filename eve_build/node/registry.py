"""`$EVE_HOME/nodes.json`: the nodes the user registered with `eve node add`.

    {"formatVersion": 1, "nodes": {"weather": {"path": "/home/me/weather"}}}

Registering is the trust decision (DESIGN.md section 8): a host connects only to
sockets of registered names. Every read checks each entry: a name that breaks the
naming rules (it builds socket, pid and log paths: `a/../../x` must never reach
them) or a path that is not absolute is left out with a `node/registry-entry-invalid`
warning; the next write drops it. The file is written like every output: staged in a
temporary sibling, then renamed over the old one, so a crash never leaves half a file.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from eve_build.diagnostics import Diagnostic, warning
from eve_build.errors import EveBuildError
from eve_build.naming import TOOL_NAME_LIMIT, find_segment_problems, find_tool_name_problems
from eve_build.node.paths import registry_path
from eve_build.userfile import read_user_text

REGISTRY_FORMAT_VERSION = 1
NAME_LIMIT = TOOL_NAME_LIMIT
"""The longest node name (it is also part of a socket path, which must stay short)."""
SHOWN_LIMIT = 80
"""How much of a bad name or path a diagnostic quotes."""
TOOLS_LIMIT = 10_000
"""The most tool names an entry records."""


@dataclass(frozen=True, order=True)
class NodeEntry:
    """One registered node: its name, its project folder (absolute) and, once it was
    started, the names of its tools then (so a host can say whose a missing tool is)."""

    name: str
    path: Path
    tools: tuple[str, ...] = field(default=(), compare=False)


def read_registry(home: Path) -> dict[str, NodeEntry]:
    """The valid registered nodes by name; an absent file is an empty registry."""
    return read_registry_checked(home)[0]


def read_registry_checked(home: Path) -> tuple[dict[str, NodeEntry], list[Diagnostic]]:
    """The valid entries, and a warning for each entry left out.

    Raises EveBuildError when the file cannot be read or is no registry at all.
    """
    file = registry_path(home)
    try:
        data = json.loads(read_user_text(file, what="node registry"))
    except FileNotFoundError:
        return {}, []
    except RecursionError:
        raise EveBuildError(f"`{file}` is nested too deeply to be a node registry",
                            "fix or delete the file, then `eve node add` the nodes again"
                            ) from None
    except (OSError, ValueError) as exc:
        raise EveBuildError(f"`{file}` cannot be read: {exc}",
                            "fix or delete the file, then `eve node add` the nodes again"
                            ) from None
    nodes = data.get("nodes") if isinstance(data, dict) else None
    if not isinstance(nodes, dict) or data.get("formatVersion") != REGISTRY_FORMAT_VERSION:
        raise EveBuildError(f"`{file}` is not a node registry of format "
                            f"{REGISTRY_FORMAT_VERSION}",
                            "fix or delete the file, then `eve node add` the nodes again")
    found: dict[str, NodeEntry] = {}
    problems: list[Diagnostic] = []
    for name, entry in sorted(nodes.items()):
        problem = find_entry_problem(name, entry)
        if problem is not None:
            problems.append(warning(
                "node/registry-entry-invalid", str(file),
                f"the node {shorten(name)} in `{file}` is left out: {problem}",
                "register the project again with `eve node add PATH [--name NAME]`; the "
                "next `eve node add` or `eve node remove` drops the bad entry"))
            continue
        found[name] = NodeEntry(name, Path(entry["path"]), _known_tools(entry.get("tools")))
    return found, problems


def find_entry_problem(name: str, entry: object) -> str | None:
    """Why a registry entry cannot be used (None when it can)."""
    if len(name) > NAME_LIMIT:
        return f"its name is {len(name)} characters long; at most {NAME_LIMIT} are allowed"
    if find_segment_problems(name):
        return ("its name is not a valid name (lower-case letters, digits, `_` and `-`, "
                "no `__`): it would build socket and log paths outside `run/` and `logs/`")
    path = entry.get("path") if isinstance(entry, dict) else None
    if not isinstance(path, str):
        return "it has no `path` string"
    if "\x00" in path or not Path(path).is_absolute():
        return f"its path {shorten(path)} is not an absolute path"
    return None


def _known_tools(value: object) -> tuple[str, ...]:
    """The recorded tool names that are names at all (anything else is ignored)."""
    if not isinstance(value, list):
        return ()
    return tuple(t for t in value[:TOOLS_LIMIT] if isinstance(t, str)
                 and not find_tool_name_problems(t))


def shorten(text: str) -> str:
    """A name or path as a diagnostic may quote it: repr-escaped, at most SHOWN_LIMIT long."""
    shown = repr(text[:SHOWN_LIMIT])
    return shown + (f" (+{len(text) - SHOWN_LIMIT} characters)" if len(text) > SHOWN_LIMIT
                    else "")


def write_registry(home: Path, nodes: dict[str, NodeEntry]) -> None:
    """Replace `nodes.json` atomically with exactly `nodes`."""
    file = registry_path(home)
    file.parent.mkdir(parents=True, exist_ok=True)
    data = {"formatVersion": REGISTRY_FORMAT_VERSION,
            "nodes": {name: {"path": str(nodes[name].path),
                             **({"tools": list(nodes[name].tools)} if nodes[name].tools else {})}
                      for name in sorted(nodes)}}
    handle, staging = tempfile.mkstemp(prefix=".nodes.json.", dir=file.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(json.dumps(data, indent=2) + "\n")
        Path(staging).replace(file)
    finally:
        Path(staging).unlink(missing_ok=True)
