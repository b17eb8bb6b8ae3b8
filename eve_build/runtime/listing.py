"""What `eve info` lists as the agent's tools: the built agent's surface.

`Agent.surface` answers "what does the agent have" for `eve prompt`, MCP `tools/list`
and a session's toolset: the compiled tools (after overrides and `disable_tool()`), the
local extensions' and the nodes' tools, and the connections' once they open. `eve info`
compiles the agent in memory, so the surface stands in for the compiled list only when
the built agent has the tools the sources compile to; otherwise (not built, built from
older sources, does not load) the compiled list stays, with a note that says why.

Connections open only when asked (`eve info --probe`): listing their tools means
connecting to their servers.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from eve_build.errors import DiagnosticsError, EveBuildError
from eve_build.formats.compiled import CompiledAgent, CompiledTree, read_compiled, walk_trees
from eve_build.runtime.agent import Agent
from eve_build.runtime.loader import load_agent
from eve_build.sdk.definitions import Tool

FROM_SURFACE = "surface"
"""`toolsSource.from`: the loaded agent's surface (Agent.surface)."""
FROM_COMPILED = "compiled"
"""`toolsSource.from`: the agent compiled in memory, as `eve build` would write it."""
COMPILED_ONLY = ("the compiled tools are listed, without the local extensions', the "
                 "nodes' and the connections' tools")


def list_built_surface(app_root: Path, expected: CompiledAgent, *, connections: bool = False,
                       environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """`tools`, `toolInputSchemas` and `toolsSource` of the agent built in `app_root`, or
    only `toolsSource` (with a note) when it is not the agent `expected` or cannot load.

    Whether it is built from the same sources is read first (one file), so an agent that
    is not built, or is behind its sources, is answered without loading it.
    """
    try:
        built = read_compiled(app_root)
    except FileNotFoundError:
        return compiled_tools_source(f"the agent is not built (run `eve build`): {COMPILED_ONLY}")
    except (EveBuildError, ValueError):  # unreadable: load_agent says the same, later
        return compiled_tools_source(f"the built agent cannot be read (run `eve build`): "
                                     f"{COMPILED_ONLY}")
    if _tool_names(built) != _tool_names(expected):
        return compiled_tools_source(f"the built agent is behind its sources (run `eve build`): "
                                     f"{COMPILED_ONLY}")
    try:
        with load_agent(app_root, environ=environ) as agent:
            return derive_surface_listing(agent, expected, connections=connections)
    except EveBuildError as exc:
        return compiled_tools_source(f"the built agent does not load ({_reason(exc)}): "
                                     f"{COMPILED_ONLY}")


def derive_surface_listing(agent: Agent, expected: CompiledAgent, *,
                           connections: bool = False) -> dict[str, Any]:
    """The surface of a loaded agent as `eve info` lists it: the root's tools (sorted) and
    every tree's input schemas (the compiled one where there is one, else the schema of
    the tool's input model, as MCP `tools/list` gives it)."""
    trees = walk_trees(expected.root)
    schemas = {tree.path: _schemas(agent, tree, connections) for tree in trees}
    has_connections = any(tree.connections for tree in trees)
    note = None if connections or not has_connections else (
        "the tools of the MCP connections are listed with `--probe` (it connects to them)")
    return {
        "tools": sorted(agent.surface(None, connections=connections).tools),
        "toolInputSchemas": {"root": schemas.pop(expected.root.path),
                             "subagents": schemas},
        "toolsSource": {"from": FROM_SURFACE, "note": note},
    }


def compiled_tools_source(note: str | None) -> dict[str, Any]:
    """`toolsSource` when the tools listed are the compiled ones."""
    return {"toolsSource": {"from": FROM_COMPILED, "note": note}}


def _schemas(agent: Agent, tree: CompiledTree, connections: bool) -> dict[str, Any]:
    compiled = {t.name: t.details["inputSchema"] for t in tree.tools if "inputSchema" in t.details}
    surface = agent.surface(tree.path or None, connections=connections).tools
    listed: dict[str, Any] = {}
    for name in sorted(surface):
        definition = surface[name].definition
        if name in compiled:
            listed[name] = compiled[name]
        elif isinstance(definition, Tool) and definition.input is not None:
            listed[name] = definition.input.model_json_schema()
    return listed


def _tool_names(compiled: CompiledAgent) -> dict[str, list[str]]:
    return {tree.path: sorted(t.name for t in tree.tools) for tree in walk_trees(compiled.root)}


def _reason(exc: EveBuildError) -> str:
    if isinstance(exc, DiagnosticsError) and exc.diagnostics:
        return exc.diagnostics[0].message
    return exc.message
