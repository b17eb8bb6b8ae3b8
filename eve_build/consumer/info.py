"""`eve info`: the resolved surface of an agent, compiled in memory (nothing is written).

The keys are exactly the contract's: status, diagnostics, instructions, tools,
toolInputSchemas, skills, subagents, schedules, channels, extensions; plus `hooks`
(per source, in run order), `toolsSource` and `env`: each `env(...)` name of the
mounts and connections with where it is set (`environment`, `.env.local`, `.env`, or
null), never its value (eve_build.project.envfiles). `mount` means the namespace everywhere
(`crm`); the logical place that keys state is `mountPath` (`extensions/crm`).

The tools (and their input schemas) are the agent's surface when the caller gives a
`surface` reader (`eve info` gives eve_build.runtime.listing's, which loads the built
agent): what `eve prompt`, MCP `tools/list` and a session's toolset list too. Without
one, or when it cannot answer, they are the compiled ones, and `toolsSource` says so.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from eve_build.consumer.compile import run_compilation
from eve_build.diagnostics import Diagnostics, summarize
from eve_build.formats.compiled import CompiledAgent, CompiledTree, walk_trees
from eve_build.project.envfiles import EnvFiles, read_env_files
from eve_build.sdk.env import ENV_MARKER, is_env_json

HIDDEN = "(hidden)"
"""A config value given in the mount file, shown only with `show_config` (it may be a
secret written in by mistake); `env(...)` values always show as `{"$env": NAME}`."""


SurfaceReader = Callable[[Path, CompiledAgent], dict[str, Any]]
"""(app root, the agent compiled in memory) -> `toolsSource`, and `tools` with
`toolInputSchemas` when it can list the agent's surface."""


def describe_agent(app_root: Path, agent: str | None = None, *, show_config: bool = False,
                   surface: SurfaceReader | None = None) -> dict[str, Any]:
    """Compile in memory and describe the result (raises UsageError for a wrong `agent`);
    with `surface`, the tools are the built agent's surface (see the module's doc)."""
    result = run_compilation(app_root, agent, write_members=False)
    info = derive_info(result.compiled, result.diagnostics, show_config=show_config)
    if result.compiled is not None and result.app is not None:
        files = read_env_files(result.app.root)
        info["env"] = derive_env_sources(result.compiled, files, os.environ)
        if files.problems:  # the load would stop on them; the compile does not
            items = info["diagnostics"]["items"] + summarize(list(files.problems))["items"]
            info["diagnostics"] = {"errors": sum(d["severity"] == "error" for d in items),
                                   "warnings": sum(d["severity"] == "warning" for d in items),
                                   "items": items}
    if surface is not None and result.compiled is not None and result.app is not None:
        info.update(surface(result.app.root, result.compiled))
    return info


def derive_info(compiled: CompiledAgent | None, diagnostics: Diagnostics, *,
                show_config: bool = False) -> dict[str, Any]:
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
        {"mount": m.namespace, "mountPath": m.mount_path, "file": m.file,
         "package": m.package, "version": m.version,
         "builtWithEve": m.built_with_eve, "requires": m.requires,
         "sourceBacked": m.source_backed,
         "config": derive_shown_config(m.config, show_config)}
        for t in trees for m in t.mounts
    ]
    info["hooks"] = derive_hooks_by_source(root) if root else {}
    info["toolsSource"] = {"from": "compiled", "note": None}
    info["env"] = []
    return info


def derive_env_sources(compiled: CompiledAgent, files: EnvFiles,
                       environ: Mapping[str, str]) -> list[dict[str, Any]]:
    """Each `env(...)` name of the agent's mounts and connections, sorted: `name`, `from`
    (`environment`, `.env.local`, `.env`, or None when unset) and `files` (where it is
    read). Never a value."""
    used: dict[str, set[str]] = {}

    def walk(value: Any, file: str) -> None:
        if is_env_json(value):
            used.setdefault(str(value[ENV_MARKER]), set()).add(file)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item, file)
        elif isinstance(value, list):
            for item in value:
                walk(item, file)

    for tree in walk_trees(compiled.root):
        for mount in tree.mounts:
            walk(mount.config, mount.file)
        for connection in tree.connections:
            walk(connection.details, connection.file)
    return [{"name": name, "from": files.origin(name, environ), "files": sorted(used[name])}
            for name in sorted(used)]


def derive_hooks_by_source(tree: CompiledTree) -> dict[str, list[dict[str, Any]]]:
    """The tree's hooks in run order, grouped by where they come from: `agent` for the
    agent's own, else the mount's namespace."""
    grouped: dict[str, list[dict[str, Any]]] = {}
    for hook in tree.hooks:
        grouped.setdefault(hook.mount or "agent", []).append(
            {"name": hook.local_name, "events": list(hook.details.get("events", [])),
             "file": hook.file})
    return grouped


def derive_shown_config(config: dict[str, Any], show: bool) -> dict[str, Any]:
    """A mount's config as `eve info` shows it: env references as `{"$env": NAME}`, other
    values as given only when `show`, else HIDDEN."""
    return {key: value if show or is_env_json(value) else HIDDEN
            for key, value in config.items()}


def _schemas(tree: CompiledTree) -> dict[str, Any]:
    return {t.name: t.details["inputSchema"] for t in tree.tools if "inputSchema" in t.details}
