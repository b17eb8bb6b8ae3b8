"""Load what `eve build` produced: `.eve/compile/compiled-agent.json` -> a live Agent.

    compiled = read_compiled_agent(Path("my-agent"))
    agent = open_compiled_agent(compiled, Path("my-agent"))   # the core, nothing local

This is the runtime core. `load_agent` and `open_agent` (`eve_build.host`, imported as
`from eve_build.runtime import load_agent`) compose it with the local extensions and
the connections' tools, which are above the runtime: the core asks for them through
the `open_layer` and `open_connections` it is given.

Loading puts the compiled `sys_path` first, installs the agent folder as the
package `eve_agent` for the life of the agent, opens every mount (mount file,
env values, config), imports every contribution and binds it to its mount. Every
problem is collected, and one DiagnosticsError lists them all.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping, MutableMapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from eve_build.diagnostics import Diagnostic, error
from eve_build.errors import DiagnosticsError
from eve_build.formats.compiled import (
    COMPILED_FORMAT_VERSION,
    COMPILED_PATH,
    CompiledAgent,
    read_compiled,
    walk_trees,
)
from eve_build.project.app import try_find_app_root
from eve_build.runtime.agent import Agent
from eve_build.runtime.modules import ModuleScope
from eve_build.runtime.mounts import open_mounts
from eve_build.runtime.redaction import derive_redactor, redact_diagnostics, remember
from eve_build.runtime.surface import Resolver, Surface
from eve_build.runtime.upgrades import find_changed_packages
from eve_build.runtime.workers import WorkerPool, shared_pool
from eve_build.sdk.binding import Binding
from eve_build.sdk.mount import Mount
from eve_build.settings import find_setting_problems

if TYPE_CHECKING:
    from eve_build.connections.tools import ConnectionTools
    from eve_build.host.loader import load_agent as load_agent
    from eve_build.host.loader import open_agent as open_agent
    from eve_build.local.layer import LocalLayer

LayerOpener = Callable[[Path, MutableMapping[str, Any], WorkerPool], "LocalLayer"]
"""Opens the local layer over the agent's state and worker pool (`eve_build.host`)."""
ConnectionsOpener = Callable[[Agent, Mapping[str, str]], "ConnectionTools"]
"""Opens the tools of the agent's connections (`eve_build.host`)."""

HOOK_BUDGET = 5.0
"""Seconds each hook handler may take (DESIGN.md section 6)."""
RUNTIME_SETTINGS = ("EVE_TOOL_TIMEOUT", "EVE_SCHEDULE_TIMEOUT", "EVE_TURN_TIMEOUT",
                    "EVE_INPUT_TIMEOUT")
"""The environment variables of eve_build.settings the runtime reads, checked at load."""


def read_compiled_agent(app_root: Path) -> CompiledAgent:
    """The compiled agent, or a DiagnosticsError that says to run `eve build`.

    `app_root` may be any folder inside the app: the root is found upward, like git."""
    app_root = try_find_app_root(app_root.resolve()) or app_root
    try:
        compiled = read_compiled(app_root)
    except FileNotFoundError:
        raise _load_error("runtime/compiled-missing", "there is no compiled agent",
                          "run `eve build` in the agent's folder first (or pass `--path`)",
                          ) from None
    except (ValidationError, ValueError) as exc:
        raise _load_error("runtime/compiled-invalid",
                          f"the compiled agent cannot be read: {_first_line(exc)}",
                          "run `eve build` again with this eve-build") from None
    if compiled.format_version != COMPILED_FORMAT_VERSION:
        raise _load_error("runtime/compiled-invalid",
                          f"the compiled agent has format {compiled.format_version}; this "
                          f"eve-build reads format {COMPILED_FORMAT_VERSION}",
                          "run `eve build` again with this eve-build")
    return compiled


def open_compiled_agent(
    compiled: CompiledAgent, app_root: Path, *, environ: Mapping[str, str] | None = None,
    hook_budget: float = HOOK_BUDGET, snapshot: Mapping[str, Any] | None = None,
    mounts: Mapping[str, Mount] | None = None, pool: WorkerPool | None = None,
    states: MutableMapping[str, Any] | None = None, open_layer: LayerOpener | None = None,
    open_connections: ConnectionsOpener | None = None,
) -> Agent:
    """Load a compiled agent; `mounts` (by mount path) stand in for mount files.

    `open_layer` opens the local extensions' layer (none without it; a failing
    extension is dropped, never fatal); `open_connections` the connections' tools (an
    agent with connections and no opener has none of their tools). `open_agent`
    (`eve_build.host`) passes both.
    """
    root = app_root.resolve()
    invalid = find_setting_problems(RUNTIME_SETTINGS, os.environ)
    if invalid:  # before any import: a 1e10 s timer raises, one of 1e308 s bounds nothing
        raise DiagnosticsError("cannot load the agent", invalid)
    trees = walk_trees(compiled.root)
    scope = ModuleScope()
    scope.add_paths(root / entry for entry in compiled.sys_path)
    changed = find_changed_packages([m for tree in trees for m in tree.mounts], sys.path)
    if changed:  # before importing anything: the installed code is not what was compiled
        scope.close()
        raise DiagnosticsError("cannot load the agent", changed)
    scope.forget_stale({m.import_name for tree in trees for m in tree.mounts})
    scope.install_agent(root / compiled.agent_dir)
    try:
        states = {} if states is None else states
        secrets: dict[str, str] = {}
        bindings, found = open_mounts(
            [m for tree in trees for m in tree.mounts], states=states,
            environ=os.environ if environ is None else environ, given=mounts, secrets=secrets)
        remember(secrets)
        resolver = Resolver(bindings, Binding(None, None, "", None, states),
                            {m.mount_path: m.import_name for t in trees for m in t.mounts})
        pool = pool or shared_pool()
        surfaces: dict[str, Surface] = {}
        for tree in trees:
            surface, problems = resolver.open_tree(tree, hook_budget, pool)
            surfaces[tree.path if tree is not compiled.root else ""] = surface
            found.extend(problems)
        if any(d.is_error for d in found):
            raise DiagnosticsError("cannot load the agent", redact_diagnostics(found, secrets))
        layer = open_layer(root, states, pool) if open_layer is not None else None
        agent = Agent(compiled, surfaces, states, pool, scope, layer)
        agent.resolver = resolver
        if open_connections is not None and any(tree.connections for tree in trees):
            # their tools join on first need
            agent.connections = open_connections(
                agent, os.environ if environ is None else environ)
        agent.redactor = derive_redactor(secrets)
        if snapshot is not None:
            agent.load_snapshot(snapshot)
        agent.start()
    except BaseException:
        scope.close()
        raise
    return agent


def _load_error(code: str, message: str, hint: str) -> DiagnosticsError:
    found: list[Diagnostic] = [error(code, COMPILED_PATH, message, hint)]
    return DiagnosticsError("cannot load the agent", found)


def _first_line(exc: Exception) -> str:
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def __getattr__(name: str) -> Any:
    """`from eve_build.runtime.loader import load_agent` (and `open_agent`), the path before
    the composition moved above the runtime, still works: they live in
    `eve_build.host.loader`, which imports this module, so they are fetched by name here,
    never imported."""
    if name in ("load_agent", "open_agent"):
        import importlib

        return getattr(importlib.import_module("eve_build.host.loader"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
