"""`eve extensions list`: one row per mount and per local extension (DESIGN section 7).

    {"name": "notes", "origin": "global", "path": "...", "status": "loaded",
     "running": null, "toolCount": 1, "tools": ["note"], "commands": ["notes"],
     "guidelines": 1, "diagnostics": [...]}

Mounts come from the compiled agent (nothing of theirs is imported, so no secret is
needed); local extensions are loaded as `eve call` would load them.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from eve_build.formats.compiled import CompiledAgent
from eve_build.local.context import LocalSession
from eve_build.local.discovery import locate_eve_home
from eve_build.local.host import LocalHost
from eve_build.local.load import derive_local_sources
from eve_build.local.record import LoadRequest, LocalExtension
from eve_build.runtime.workers import shared_pool

ROW_KEYS = ("name", "origin", "path", "status", "running", "toolCount", "tools", "commands",
            "guidelines", "diagnostics")


def derive_extension_rows(app_root: Path, compiled: CompiledAgent | None,
                          explicit: Sequence[Path] = (), *,
                          eve_home: Path | None = None) -> list[dict[str, Any]]:
    """The mounts of `compiled` (when built), then every local extension in load order."""
    rows = [] if compiled is None else derive_mount_rows(compiled)
    request = LoadRequest(project_root=app_root.resolve(),
                          eve_home=eve_home or locate_eve_home(), states={},
                          session=LocalSession(), pool=shared_pool())
    host = LocalHost(derive_local_sources(explicit))
    taken = {t.name: f"mount `{t.mount}`" if t.mount else "the agent"
             for t in (compiled.root.tools if compiled else [])}
    try:
        rows.extend(derive_local_row(record) for record in host.load(request, taken))
    finally:
        host.close()
    return rows


def derive_mount_rows(compiled: CompiledAgent) -> list[dict[str, Any]]:
    rows = []
    for mount in sorted(compiled.root.mounts, key=lambda m: m.namespace):
        tools = sorted(t.name for t in compiled.root.tools if t.mount == mount.namespace)
        rows.append({"name": mount.namespace, "origin": "mount", "path": mount.file,
                     "status": "loaded", "running": None, "toolCount": len(tools),
                     "tools": tools, "commands": [], "guidelines": 0, "diagnostics": []})
    return rows


def derive_local_row(record: LocalExtension) -> dict[str, Any]:
    tools = sorted(record.tools)
    return {"name": record.name, "origin": record.origin, "path": record.path,
            "status": record.status, "running": record.running, "toolCount": len(tools),
            "tools": tools, "commands": sorted(record.commands),
            "guidelines": len(record.guidelines),
            "diagnostics": [d.to_json() for d in record.diagnostics]}

