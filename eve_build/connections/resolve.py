"""Resolve every connection of a loaded agent: static ones read their definition,
dynamic ones run `resolve(ctx)` bound to their mount (so `extension.config` works);
`env(...)` values in the URL and headers are applied. A problem is a Diagnostic
naming the connection file; the value of a header never appears anywhere.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from eve_build.diagnostics import Diagnostic, error
from eve_build.formats.compiled import CompiledContribution, walk_trees
from eve_build.runtime.agent import Agent
from eve_build.runtime.handlers import run_bound
from eve_build.runtime.workers import shared_pool
from eve_build.sdk.binding import Binding, ToolContext
from eve_build.sdk.definitions import Connection, Dynamic
from eve_build.sdk.env import MissingEnvError, resolve_env


@dataclass(frozen=True)
class ResolvedConnection:
    """One connection as the agent would use it; `headers` hold values: never print them."""

    name: str  # "crm__api"
    subagent: str  # "" for the root agent
    file: str
    dynamic: bool
    kind: str | None = None
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)

    def to_json(self) -> dict[str, Any]:
        """The listing: header names only."""
        return {"name": self.name, "subagent": self.subagent or None, "file": self.file,
                "dynamic": self.dynamic, "kind": self.kind, "url": self.url,
                "headers": sorted(self.headers)}


async def discover_connections(agent: Agent, environ: Mapping[str, str],
                               ) -> tuple[list[ResolvedConnection], list[Diagnostic]]:
    """Every connection of every agent tree, in tree then name order, and the problems."""
    resolved: list[ResolvedConnection] = []
    found: list[Diagnostic] = []
    for tree in walk_trees(agent.compiled.root):
        for item in sorted(tree.connections, key=lambda c: c.name):
            connection = await _resolve(agent, item, found)
            if connection is None:
                resolved.append(ResolvedConnection(item.name, tree.path, item.file,
                                                   bool(item.details.get("dynamic"))))
                continue
            resolved.append(_apply_env(connection, item, tree.path, environ, found))
    return resolved, found


async def _resolve(agent: Agent, item: CompiledContribution,
                   found: list[Diagnostic]) -> Connection | None:
    definition: Any = None
    if item.module and item.attribute:
        try:
            definition = getattr(importlib.import_module(item.module), item.attribute, None)
        except Exception as exc:  # user code may raise anything
            found.append(error("connection/resolve-failed", item.file,
                               f"importing `{item.module}` raised {type(exc).__name__}: {exc}",
                               "fix the module, then run `eve build` again"))
            return None
    if isinstance(definition, Dynamic) and definition.resolve is not None:
        binding = _binding(agent, item)
        if binding is None:
            return None  # the mount did not open: loading already said why
        if binding.unavailable:  # its mount lacks an env value: its code may not run
            found.append(error("connection/resolve-failed", item.file,
                               f"the dynamic connection `{item.name}` cannot resolve: "
                               f"{binding.unavailable}",
                               "give the mount what it needs (its config's `env` values)"))
            return None
        done = await run_bound(definition.resolve, (ToolContext(item.name, item.mount),),
                               binding=binding, pool=shared_pool())
        if done.ending != "returned" or not isinstance(done.value, Connection):
            what = (f"raised {type(done.error).__name__}: {done.error}" if done.error else
                    f"returned {type(done.value).__name__}, not define_connection(...)")
            found.append(error("connection/resolve-failed", item.file,
                               f"resolving the dynamic connection `{item.name}` {what}",
                               "make `resolve(ctx)` return `define_connection(url=...)`"))
            return None
        return done.value
    if isinstance(definition, Connection):
        return definition
    found.append(error("connection/resolve-failed", item.file,
                       f"`{item.module}.{item.attribute}` is no longer a connection definition",
                       "run `eve build` again"))
    return None


def _binding(agent: Agent, item: CompiledContribution) -> Binding | None:
    """The binding a contribution runs with (the agent's own, or its mount's)."""
    if agent.resolver is None:
        return None
    if item.mount is None:
        return agent.resolver.agent
    return agent.resolver.bindings.get(item.mount_path or "")


def _apply_env(connection: Connection, item: CompiledContribution, subagent: str,
               environ: Mapping[str, str], found: list[Diagnostic]) -> ResolvedConnection:
    dynamic = bool(item.details.get("dynamic"))
    names = [str(name) for name in (connection.headers or {})]
    try:
        url = str(resolve_env(connection.url, environ))
        headers = {str(k): str(resolve_env(v, environ))
                   for k, v in (connection.headers or {}).items()}
    except MissingEnvError as exc:
        found.append(error("connection/env-missing", item.file,
                           f"the connection `{item.name}` needs the environment variable "
                           f"`{exc.name}`, which is not set",
                           f"set `{exc.name}` in the environment that runs the agent"))
        return ResolvedConnection(item.name, subagent, item.file, dynamic, connection.kind,
                                  None, dict.fromkeys(names, ""))
    if urlsplit(url).scheme not in ("http", "https") or not urlsplit(url).hostname:
        found.append(error("connection/url-invalid", item.file,
                           f"the connection `{item.name}` has the URL `{url}`, which is not an "
                           "http(s) URL", 'use a URL such as "https://host/mcp"'))
    return ResolvedConnection(item.name, subagent, item.file, dynamic, connection.kind, url,
                              headers)
