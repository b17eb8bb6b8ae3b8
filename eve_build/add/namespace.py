"""The namespace `eve add` mounts under, checked before anything is read or written.

`--as NS` is checked as soon as `eve add` starts, before the target is built, read or
installed: a name segment (`[a-z0-9][a-z0-9_-]*`, no `__`) short enough that a
qualified tool name `NS__x` stays within the 64 characters providers accept. Once the
manifest is read, the extension's longest tool name is checked with it, still before
the install: a mount whose tool names the agent build would refuse
(`mount/tool-name-too-long`) would leave the add half-done.
"""

from __future__ import annotations

from collections.abc import Iterable

from eve_build.naming import MOUNT_SEPARATOR, TOOL_NAME_LIMIT, find_segment_problems

MAX_NAMESPACE = TOOL_NAME_LIMIT - len(MOUNT_SEPARATOR) - 1
"""`NS__x`, the shortest qualified name, must fit in TOOL_NAME_LIMIT."""


def find_namespace_problems(namespace: str, tools: Iterable[str] = ()) -> list[str]:
    """What makes `namespace` unusable as a mount name (empty when fine); `tools` are
    the extension's tool names, once its manifest is read."""
    shown = namespace if len(namespace) <= 40 else f"{namespace[:37]}..."
    problems = find_segment_problems(namespace) if len(namespace) <= 200 else []
    if len(namespace) > MAX_NAMESPACE:
        problems.append(f"`{shown}` has {len(namespace)} characters; a namespace may have at "
                        f"most {MAX_NAMESPACE} (`NS__tool` must fit in {TOOL_NAME_LIMIT})")
        return problems
    longest = max(tools, key=len, default="")
    qualified = f"{namespace}{MOUNT_SEPARATOR}{longest}"
    if longest and len(qualified) > TOOL_NAME_LIMIT:
        problems.append(f"the tool `{longest}` would be `{qualified}`, {len(qualified)} "
                        f"characters; providers accept at most {TOOL_NAME_LIMIT}")
    return problems
