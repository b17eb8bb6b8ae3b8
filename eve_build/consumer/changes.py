"""What changed in the mounted packages since the last build, for `eve build` to say.

    acme-crm 0.1.0 -> 0.2.0: 1 tool added (crm__export), config field region now required
    gizmo 1.0.0 rebuilt: tool gizmo__spin: description changed

Derived from the previous `compiled-agent.json` and the new one alone: for each mount
present in both whose package version or manifest hash differs, the tools that mount
adds or loses, the tools whose description, input schema or approval changed (what
the model sees), and how the config schema's fields changed. A package mounted twice is
described once (its first mount in sorted order).
"""

from __future__ import annotations

from typing import Any

from eve_build.formats.compiled import CompiledAgent, CompiledMount, walk_trees


def derive_changes(before: CompiledAgent | None, after: CompiledAgent) -> list[str]:
    """One line per changed package (empty when nothing changed or there was no build)."""
    if before is None:
        return []
    old = _mounts(before)
    lines: list[str] = []
    described: set[str] = set()
    for path, mount in sorted(_mounts(after).items()):
        previous = old.get(path)
        if previous is None or mount.package in described or not _differs(previous, mount):
            continue
        described.add(mount.package)
        details = [*_tool_changes(before, after, path), *_tool_edits(before, after, path),
                   *_config_changes(previous, mount)]
        head = (f"{mount.package} {previous.version} -> {mount.version}"
                if previous.version != mount.version else f"{mount.package} {mount.version} "
                "rebuilt")
        lines.append(f"{head}: {', '.join(details) if details else 'no change to its surface'}")
    return lines


def _mounts(agent: CompiledAgent) -> dict[str, CompiledMount]:
    return {m.mount_path: m for tree in walk_trees(agent.root) for m in tree.mounts}


def _differs(previous: CompiledMount, mount: CompiledMount) -> bool:
    return (previous.package != mount.package or previous.version != mount.version
            or previous.manifest_hash != mount.manifest_hash)


def _tools(agent: CompiledAgent, mount_path: str) -> set[str]:
    return {t.name for tree in walk_trees(agent.root) for t in tree.tools
            if t.mount_path == mount_path}


def _tool_changes(before: CompiledAgent, after: CompiledAgent, path: str) -> list[str]:
    old, new = _tools(before, path), _tools(after, path)
    found: list[str] = []
    for names, verb in ((sorted(new - old), "added"), (sorted(old - new), "removed")):
        if names:
            noun = "tool" if len(names) == 1 else "tools"
            found.append(f"{len(names)} {noun} {verb} ({', '.join(names)})")
    return found


SURFACE_DETAILS = (("description", "description"), ("inputSchema", "input"),
                   ("approval", "approval"))
"""What the model sees of a tool (or how it is gated): a change to any is a surface change."""


def _tool_edits(before: CompiledAgent, after: CompiledAgent, path: str) -> list[str]:
    """`tool crm__search: description changed` for each tool in both builds."""
    old = {t.name: t.details for tree in walk_trees(before.root) for t in tree.tools
           if t.mount_path == path}
    found: list[str] = []
    for tree in walk_trees(after.root):
        for tool in sorted(tree.tools, key=lambda t: t.name):
            was = old.get(tool.name)
            if tool.mount_path != path or was is None:
                continue
            changed = [word for key, word in SURFACE_DETAILS
                       if was.get(key) != tool.details.get(key)]
            if changed:
                found.append(f"tool {tool.name}: {' and '.join(changed)} changed")
    return found


def _config_changes(previous: CompiledMount, mount: CompiledMount) -> list[str]:
    old_fields, old_required = _fields(previous.config_schema)
    new_fields, new_required = _fields(mount.config_schema)
    found: list[str] = []
    for name in sorted(new_fields | old_fields):
        if name not in old_fields:
            state = "added, required" if name in new_required else "added"
        elif name not in new_fields:
            state = "removed"
        elif name in new_required and name not in old_required:
            state = "now required"
        elif name in old_required and name not in new_required:
            state = "now optional"
        else:
            continue
        found.append(f"config field {name} {state}")
    return found


def _fields(schema: dict[str, Any] | None) -> tuple[set[str], set[str]]:
    if not schema:
        return set(), set()
    properties = schema.get("properties")
    required = schema.get("required")
    return (set(properties) if isinstance(properties, dict) else set(),
            {str(r) for r in required} if isinstance(required, list) else set())
