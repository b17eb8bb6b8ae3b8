"""Parent side of an extension build: plan the modules, use the cache, run the workers,
and assemble what they found into the manifest's contributions.

The parent never imports user code: each module is imported and checked by a worker
(`engine.batch`), which returns JSON. A small extension runs in one worker, a large one
is split across the cores; the assembly below reads results by path in the tree's
order, so the output is the same however the work was split.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eve_build import slots
from eve_build.diagnostics import Diagnostic, Diagnostics, error
from eve_build.engine import cache as caching
from eve_build.engine.batch import Job, check_batch
from eve_build.engine.workers import run_jobs
from eve_build.load.checks import Record
from eve_build.load.contributions import _check_skill, _Context
from eve_build.load.importer import LoadedModules
from eve_build.load.routes import find_duplicate_routes
from eve_build.output.generate import SOURCE_PACKAGE
from eve_build.project.pyproject import PYPROJECT, ExtensionProject
from eve_build.source.layout import AgentTree, SourceLayout
from eve_build.userfile import read_user_bytes

MODULES_PER_WORKER = 40
"""Below twice this, one worker: forking more would cost more than it saves."""
MAX_RESTARTS = 8
"""Fresh workers started after hangs and crashes, per build, before giving up."""


@dataclass
class CheckedSource:
    """What the definitions add up to, as plain data."""

    contributions: Record = field(default_factory=dict)
    capabilities: set[str] = field(default_factory=set)
    config_schema: Record | None = None
    stub_parameters: str = ""
    stub_classes: str = ""  # TypedDicts the parameters name (nested config models)
    root_tools: list[tuple[str, str, str]] = field(default_factory=list)  # name, path, kind
    imported: list[str] = field(default_factory=list)  # modules imported (not from cache)


def derive_modules(layout: SourceLayout, project: ExtensionProject) -> list[tuple[str, str, str]]:
    """(path, role, name) of every module to import, in load order."""
    found: dict[str, tuple[str, str, str]] = {}
    if (project.source_dir / slots.EXTENSION_MODULE).is_file():
        found[slots.EXTENSION_MODULE] = (slots.EXTENSION_MODULE, "extension", "")
    for tree in layout.tree.walk():
        if tree.agent_module:
            found.setdefault(tree.agent_module, (tree.agent_module, "agent", tree.name or ""))
        for entry in tree.modules:
            found.setdefault(entry.path, (entry.path, entry.slot.directory, entry.name))
        if tree.instructions and tree.instructions.endswith(".py"):
            found.setdefault(tree.instructions, (tree.instructions, "instructions", ""))
    return list(found.values())


def derive_worker_count(misses: int, cores: int | None = None) -> int:
    """Workers for `misses` modules: one below 2 * MODULES_PER_WORKER, else up to the
    cores this process may run on."""
    if cores is None:
        affinity = getattr(os, "sched_getaffinity", None)
        cores = len(affinity(0)) if affinity is not None else (os.cpu_count() or 1)
    if misses < 2 * MODULES_PER_WORKER:
        return 1 if misses else 0
    return max(1, min(cores, misses // MODULES_PER_WORKER))


def split_evenly(items: list[Any], parts: int) -> list[list[Any]]:
    size, extra = divmod(len(items), parts)
    chunks, start = [], 0
    for index in range(parts):
        end = start + size + (1 if index < extra else 0)
        chunks.append(items[start:end])
        start = end
    return chunks


def check_source(project: ExtensionProject, layout: SourceLayout, *, budget: float,
                 cache: caching.BuildCache | None, workers: int | None = None,
                 collected: Diagnostics, sources: Mapping[str, bytes] | None = None,
                 environment: str | None = None) -> CheckedSource:
    """Import and check every module (through the cache), then assemble the tree.

    `sources` are source files already read (by path under the source folder) and
    `environment` the environment digest already derived, when the caller has them."""
    given = sources or {}

    def read(relative: str) -> bytes:
        data = given.get(relative)
        return data if data is not None else _read(project.source_dir / relative)

    modules = derive_modules(layout, project)
    contributions = {path for path, role, _ in modules if role != "extension"}
    skills = {s.path for tree in layout.tree.walk() for s in tree.skills}
    shared = {p: read(p) for p in layout.files if p not in contributions and p not in skills}
    digest = caching.derive_shared_digest(
        environment or caching.derive_environment_digest(project.dependencies),
        _read(project.root / PYPROJECT), shared)
    keys = {path: caching.derive_module_key(digest, path, role, read(path))
            for path, role, _ in modules}
    results: dict[str, Any] = {}
    if cache is not None:
        hits = cache.read_many(keys.values())
        results = {path: hits[key] for path, key in keys.items() if key in hits}
    misses = [m for m in modules if m[0] not in results]
    count = workers if workers is not None else derive_worker_count(len(misses))
    base: Job = {
        "package": f"{project.import_name}.{SOURCE_PACKAGE}",
        "source": str(project.source_dir), "package_root": str(project.root),
        "display": f"{project.source}/", "identity_prefix": f"{project.import_name}:",
        "contributions": sorted(contributions), "modules": [],
    }
    fresh = run_batches(base, split_evenly(misses, count) if misses else [], budget, collected)
    if cache is not None:
        stray = {d.file for d in collected.errors}
        cache.write({keys[path]: value for path, value in fresh.items()
                     if value["imported"] and f"{project.source}/{path}" not in stray})
    results.update(fresh)
    checked = assemble(project, layout, modules, results, collected)
    checked.imported = [path for path, _, _ in misses if path in fresh]
    return checked


def run_batches(base: Job, batches: list[list[tuple[str, str, str]]], budget: float,
                collected: Diagnostics) -> dict[str, Any]:
    """Run each batch in a worker. When a worker hangs or dies, the modules after the one
    that stopped it get a fresh worker, so one bad module does not hide the rest (after
    MAX_RESTARTS such failures, the remaining modules are left unchecked)."""
    fresh: dict[str, Any] = {}
    restarts = 0
    while batches:
        jobs: list[Job] = [{**base, "modules": batch} for batch in batches if batch]
        retry: list[list[tuple[str, str, str]]] = []
        for job, outcome in zip(jobs, run_jobs(check_batch, jobs, budget=budget), strict=True):
            collected.extend(outcome.found)
            fresh.update(outcome.partial)
            if outcome.failure is None:
                continue
            collected.add(outcome.failure)
            stopped = outcome.failure.file.removeprefix(base["display"])
            rest = [m for m in job["modules"] if m[0] not in fresh and m[0] != stopped]
            if rest and restarts < MAX_RESTARTS:
                restarts += 1
                retry.append(rest)
        batches = retry
    return fresh


def _read(path: Path) -> bytes:
    try:
        return read_user_bytes(path).data
    except OSError:
        return b""


def assemble(project: ExtensionProject, layout: SourceLayout, modules: list[tuple[str, str, str]],
             results: dict[str, Any], collected: Diagnostics) -> CheckedSource:
    """The manifest's contributions from per-module results, in the tree's order."""
    display = f"{project.source}/"
    for path, _, _ in modules:
        collected.extend(Diagnostic.from_json(d) for d in results.get(path, {}).get("import", []))
    for path, _, _ in modules:
        collected.extend(Diagnostic.from_json(d) for d in results.get(path, {}).get("check", []))
    checked = CheckedSource()
    extension = results.get(slots.EXTENSION_MODULE, {}).get("extra") or {}
    checked.config_schema = extension.get("configSchema")
    checked.stub_parameters = extension.get("stubParameters", "")
    checked.stub_classes = extension.get("stubClasses", "")
    ctx = _Context(project.source_dir, display, f"{project.import_name}:",
                   LoadedModules(package=""))
    for result in results.values():
        ctx.capabilities.update(result.get("capabilities", []))
    checked.contributions = _tree(ctx, layout.tree, results, checked)
    collected.extend(find_duplicate_routes(checked.contributions, display))
    states = _states(ctx, results)
    if states:
        checked.contributions["states"] = states
        ctx.capabilities.add("state")
    collected.extend(ctx.found)
    checked.capabilities = ctx.capabilities
    return checked


def _tree(ctx: _Context, tree: AgentTree, results: dict[str, Any],
          checked: CheckedSource) -> Record:
    record: Record = {slot.directory: [] for slot in slots.SLOTS}
    for entry in tree.modules:
        result = results.get(entry.path) or {}
        if result.get("record") is None:
            continue
        record[entry.slot.directory].append(result["record"])
        if tree.path == "" and entry.slot == slots.TOOLS:
            checked.root_tools.append((entry.name, entry.path, result["extra"]["kind"]))
    for skill in tree.skills:
        record["skills"].append(_check_skill(ctx, skill.name, skill.path, skill.packaged,
                                             skill.assets))
    for sub in tree.subagents:
        ctx.capabilities.add("subagent")
        item: Record = {"name": sub.name, "path": sub.path, "file": sub.agent_module}
        if sub.agent_module is not None:
            item.update((results.get(sub.agent_module) or {}).get("record") or {})
        item["contributions"] = _tree(ctx, sub, results, checked)
        record["subagents"].append(item)
    if tree.instructions is not None:
        markdown = tree.instructions.endswith(".md")
        ctx.capabilities.add("instructions" if markdown else "dynamicInstructions")
        record["instructions"] = {"file": tree.instructions,
                                  "kind": "markdown" if markdown else "dynamic"}
    if tree.mounts:
        record["mounts"] = tree.mounts
    return {key: value for key, value in record.items() if value}


def _states(ctx: _Context, results: dict[str, Any]) -> list[Record]:
    """Each state once, by name; a second definition of a name is an error."""
    entries = {(name, file, ordinal) for result in results.values()
               for name, file, ordinal in result.get("states", [])}
    order = sorted(entries, key=lambda e: (e[1].removesuffix(".py").replace("/", "."), e[2]))
    first: dict[str, tuple[str, str, int]] = {}
    found: list[Diagnostic] = []
    for entry in order:
        winner = first.setdefault(entry[0], entry)
        if winner != entry:
            found.append(error(
                "state/name-duplicate", f"{ctx.display}{entry[1]}",
                f"the state `{entry[0]}` is also defined in `{ctx.display}{winner[1]}`",
                "give each define_state() of an extension its own name",
            ))
    ctx.found.extend(found)
    return [{"name": name, "file": entry[1]} for name, entry in sorted(first.items())]
