"""`eve info`: the resolved surface of an agent, compiled in memory (nothing is written).

The keys are exactly the contract's: status, diagnostics, instructions, tools,
toolInputSchemas, skills, subagents, schedules, channels, extensions. `mount` is
always the namespace (`crm`); the logical path of a mount is `mountPath`
(`extensions/crm`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from eve_build.consumer.compile import compile_agent
from eve_build.consumer.compiled import CompiledAgent, CompiledTree, walk_trees
from eve_build.diagnostics import Diagnostics, summarize


def describe_agent(app_root: Path, agent: str | None = None) -> dict[str, Any]:
    """Compile in memory and describe the result (raises UsageError for a wrong `agent`)."""
    compiled, diagnostics = compile_agent(app_root, agent)
    return derive_info(compiled, diagnostics)


def derive_info(compiled: CompiledAgent | None, diagnostics: Diagnostics) -> dict[str, Any]:
    info: dict[str, Any] = {
        "status": "failed" if compiled is None else "ready",
        "diagnostics": summarize(diagnostics.sorted()),
    }
    trees = walk_trees(compiled.root) if compiled else []
    root = compiled.root if compiled else None
    info["instructions"] = [
        {"mount": i.mount, "kind": i.kind, "file": i.file} for i in (root.instructions if root
                                                                     else [])
    ]
    info["tools"] = [t.name for t in root.tools] if root else []
    info["toolInputSchemas"] = {
        "root": _schemas(root) if root else {},
        "subagents": {t.path: _schemas(t) for t in trees if t.path},
    }
    info["skills"] = [s.name for s in root.skills] if root else []
    info["subagents"] = [t.path for t in trees if t.path]
    info["schedules"] = [s.name for s in root.schedules] if root else []
    info["channels"] = [
        {"name": c.name, "method": c.details.get("method"), "urlPath": c.details.get("route")}
        for t in trees for c in t.channels
    ]
    info["extensions"] = [
        {"mount": m.namespace, "mountPath": m.mount_path, "package": m.package,
         "version": m.version, "builtWithEve": m.built_with_eve, "requires": m.requires,
         "sourceBacked": m.source_backed}
        for t in trees for m in t.mounts
    ]
    return info


def _schemas(tree: CompiledTree) -> dict[str, Any]:
    return {t.name: t.details["inputSchema"] for t in tree.tools if "inputSchema" in t.details}
