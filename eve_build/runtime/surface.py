"""What one agent tree offers at run time: its tools by name and its hook pipeline.

Each compiled contribution is imported from its module, bound to the mount it
belongs to, and given the identity the compiler recorded, so `tool_result_from`
maps a namespaced result back to the package's definition.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from eve_build.capabilities import SOURCE_PACKAGE_DIR as SOURCE_PACKAGE
from eve_build.diagnostics import Diagnostic, error
from eve_build.formats.compiled import CompiledContribution, CompiledTree
from eve_build.runtime.pipeline import HookEntry, HookPipeline
from eve_build.runtime.tools import ToolEntry
from eve_build.runtime.trace import HookSource
from eve_build.runtime.workers import WorkerPool
from eve_build.sdk.binding import Binding
from eve_build.sdk.definitions import Dynamic, Hook, Tool


@dataclass(frozen=True)
class Surface:
    path: str
    tools: Mapping[str, ToolEntry]  # with the connections' tools: see Agent.surface
    pipeline: HookPipeline


@dataclass(frozen=True)
class Resolver:
    """Turns compiled contributions into bound definitions."""

    bindings: Mapping[str, Binding]  # by mount path
    agent: Binding
    imports: Mapping[str, str]  # mount path -> import name, to find overridden originals

    def open_tree(self, tree: CompiledTree, budget: float,
                  pool: WorkerPool) -> tuple[Surface, list[Diagnostic]]:
        found: list[Diagnostic] = []
        tools: dict[str, ToolEntry] = {}
        for item in tree.tools:
            definition = self.definition(item, (Tool, Dynamic), found)
            binding = self.binding(item, found)
            if definition is None or binding is None:
                continue
            entry = ToolEntry(item.name, item.local_name, item.mount, definition, item.identity,
                              binding, item.file)
            if item.name not in tools or entry.dynamic:  # a dynamic tool wins at run time
                tools[item.name] = entry
        hooks: list[HookEntry] = []
        skipped: list[str] = []
        for item in tree.hooks:
            hook = self.definition(item, (Hook,), found)
            binding = self.binding(item, found)
            if binding is not None and binding.unavailable:  # that mount's hooks do not run
                skipped.append(f"the hook `{item.name}` of `{item.mount}` did not run: "
                               f"{binding.unavailable}")
            elif isinstance(hook, Hook) and binding is not None:
                hooks.append(HookEntry(HookSource(item.mount, item.local_name), hook, binding))
        pipeline = HookPipeline(hooks, budget, pool, skipped=skipped)
        return Surface(tree.path, tools, pipeline), found

    def definition(self, item: CompiledContribution, kinds: tuple[type, ...],
                   found: list[Diagnostic]) -> Any:
        if item.module is None or item.attribute is None:
            return None
        try:
            value = getattr(importlib.import_module(item.module), item.attribute, None)
        except Exception as exc:  # user code may raise anything
            found.append(error("runtime/definition-failed", item.file,
                               f"importing `{item.module}` raised {type(exc).__name__}: {exc}",
                               "fix the module, then run `eve build` again"))
            return None
        if not isinstance(value, kinds):
            found.append(error("runtime/definition-failed", item.file,
                               f"`{item.module}.{item.attribute}` is no longer a {item.kind} "
                               "definition", "run `eve build` again"))
            return None
        self._stamp(value, item)
        return value

    def binding(self, item: CompiledContribution, found: list[Diagnostic]) -> Binding | None:
        if item.mount is None:
            return self.agent
        if item.mount_path is not None and item.mount_path in self.bindings:
            return self.bindings[item.mount_path]
        matches = [b for b in self.bindings.values() if b.namespace == item.mount]
        if len(matches) == 1:
            return matches[0]
        if not matches:  # the mount itself failed to open: that is already reported
            return None
        found.append(error("runtime/definition-failed", item.file,
                           f"`{item.name}` names the mount `{item.mount}` but no mount path",
                           "run `eve build` again"))
        return None

    def _stamp(self, value: object, item: CompiledContribution) -> None:
        """Give the definition (and the package original it overrides) its identity."""
        if not item.identity:
            return
        if not getattr(value, "identity", "x"):
            object.__setattr__(value, "identity", item.identity)
        package_file = item.identity.partition(":")[2]
        import_name = self.imports.get(item.mount_path or "")
        if item.source != "package" and import_name and package_file.endswith(".py"):
            dotted = package_file.removesuffix(".py").replace("/", ".")
            original = sys.modules.get(f"{import_name}.{SOURCE_PACKAGE}.{dotted}")
            target = getattr(original, item.attribute or "", None)
            if target is not None and not getattr(target, "identity", "x"):
                object.__setattr__(target, "identity", item.identity)
