"""`eve connections [--probe]` and `eve info --probe`: one call each into here.

Both load the built agent (`.eve/compile/`, as `eve call` does), because dynamic
connections resolve only at load, bound to their mount's config.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from eve_build.connections.resolve import ResolvedConnection, discover_connections
from eve_build.diagnostics import Diagnostic, summarize
from eve_build.host import load_agent

PROBE_TIMEOUT = 5.0
"""Seconds one probe may take, connecting and listing included."""
NOT_PROBED = {"status": "not-probed", "reachable": False, "transport": None, "tools": [],
              "error": "not probed: see the diagnostics"}


def describe_connections(app_root: Path, *, probe: bool = False,
                         environ: Mapping[str, str] | None = None,
                         timeout: float = PROBE_TIMEOUT) -> dict[str, Any]:
    """`{"connections": [...], "diagnostics": {...}}`; `probe` adds each MCP server's tools.

    Raises DiagnosticsError when the agent does not load (not built, env missing...).
    """
    environ = os.environ if environ is None else environ
    with load_agent(app_root, environ=environ) as agent:
        resolved, found = asyncio.run(discover_connections(agent, environ))
    probes: dict[str, Any] = {}
    if probe:
        probes, problems = probe_all(resolved, timeout)
        found.extend(problems)
    rows = []
    for connection in resolved:
        row = connection.to_json()
        key = _key(connection)
        if probe and connection.kind == "mcp":
            row["probe"] = probes.get(key, NOT_PROBED)
        rows.append(row)
    return {"connections": rows, "diagnostics": summarize(sorted(found, key=_order))}


def probe_all(resolved: list[ResolvedConnection], timeout: float,
              ) -> tuple[dict[str, Any], list[Diagnostic]]:
    """Probe results by connection key (`name` or `subagent/name`) and their problems."""
    from eve_build.connections.sdk import require_sdk

    require_sdk("`--probe`")
    from eve_build.connections.probe import probe_connections

    results = asyncio.run(probe_connections(resolved, timeout=timeout))
    problems = [r.problem for r in results.values() if r.problem is not None]
    return {key: r.to_json() for key, r in results.items()}, problems


def _key(connection: ResolvedConnection) -> str:
    return (f"{connection.subagent}/" if connection.subagent else "") + connection.name


def _order(diagnostic: Diagnostic) -> tuple[str, str]:
    return diagnostic.file, diagnostic.message


def describe_agent_probed(app_root: Path, agent: str | None = None, *,
                          environ: Mapping[str, str] | None = None,
                          timeout: float = PROBE_TIMEOUT,
                          show_config: bool = False) -> dict[str, Any]:
    """`eve info` plus `connections`, each MCP one with the tools its server lists.

    The info is compiled in memory as always; the probe loads the built agent, whose
    problems join the diagnostics (they do not change `status`, which is the compile's),
    and its tools are the surface with the connections' (opened to list them).
    """
    from functools import partial

    from eve_build.consumer.info import describe_agent
    from eve_build.project.app import locate_app
    from eve_build.runtime.listing import list_built_surface

    surface = partial(list_built_surface, connections=True, environ=environ)
    info = describe_agent(app_root, agent, show_config=show_config, surface=surface)
    app, _ = locate_app(app_root, agent)
    if info["status"] != "ready" or app is None:
        return info
    report = describe_connections(app.root, probe=True, environ=environ, timeout=timeout)
    info["connections"] = report["connections"]
    items = info["diagnostics"]["items"] + report["diagnostics"]["items"]
    info["diagnostics"] = {"errors": sum(d["severity"] == "error" for d in items),
                           "warnings": sum(d["severity"] == "warning" for d in items),
                           "items": items}
    return info
