"""Parent side of an extension build: plan the modules, use the cache, run the workers,
and assemble what they found into the manifest's contributions (engine.assembly).

The parent never imports user code, nor pydantic: each module is imported and checked
by a worker (`engine.batch`), which returns JSON. Workers fork from a zygote that has
imported the checking code (engine.zygote). A small extension runs in one worker, a
large one is split across the cores; the output is the same however it was split.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from eve_build import slots
from eve_build.capabilities import SOURCE_PACKAGE_DIR as SOURCE_PACKAGE
from eve_build.diagnostics import Diagnostics
from eve_build.engine import cache as caching
from eve_build.engine import zygote as zygotes
from eve_build.engine.assembly import CheckedSource as CheckedSource
from eve_build.engine.assembly import assemble
from eve_build.engine.workers import run_jobs
from eve_build.project.pyproject import PYPROJECT, ExtensionProject
from eve_build.source.layout import SourceLayout
from eve_build.userfile import read_user_bytes

if TYPE_CHECKING:  # the checking code (pydantic, the SDK) is the workers'; see `_warm`
    from eve_build.engine.batch import Job

MODULES_PER_WORKER = 12
"""Below twice this, one worker. A warm worker (forked from the zygote) starts in ~5 ms
and re-imports the extension's shared modules (~5 ms); a module costs ~2.5-3 ms to
import and check (bench/floor.py): from 24 modules on, a second core pays for itself."""
CHECK_BATCH = "eve_build.engine.batch:check_batch"
MAX_RESTARTS = 8
"""Fresh workers started after hangs and crashes, per build, before giving up."""


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
                 environment: str | None = None,
                 zygote: zygotes.Zygote | None = None) -> CheckedSource:
    """Import and check every module (through the cache), then assemble the tree.

    `sources` are source files already read (by path under the source folder) and
    `environment` the environment digest already derived, when the caller has them;
    `zygote` forks the workers (engine.zygote.warm_workers), closed once they are done."""
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
    if not misses and zygote is not None:
        zygote.close()  # nothing to import: stop it (it may still be importing)
    fresh = run_batches(base, split_evenly(misses, count) if misses else [], budget,
                        collected, zygote)
    if zygote is not None:
        zygote.close()
    if cache is not None:
        stray = {d.file for d in collected.errors}
        cache.write({keys[path]: value for path, value in fresh.items()
                     if value["imported"] and f"{project.source}/{path}" not in stray})
    results.update(fresh)
    checked = assemble(project, layout, modules, results, collected)
    checked.imported = [path for path, _, _ in misses if path in fresh]
    return checked


def _import_assembly() -> None:
    """What the build needs after the workers, imported while they run."""
    import eve_build.formats.json_text
    import eve_build.output.generate  # noqa: F401


def run_batches(base: Job, batches: list[list[tuple[str, str, str]]], budget: float,
                collected: Diagnostics, zygote: zygotes.Zygote | None = None
                ) -> dict[str, Any]:
    """Run each batch in a worker. When a worker hangs or dies, the modules after the one
    that stopped it get a fresh worker, so one bad module does not hide the rest (after
    MAX_RESTARTS such failures, the remaining modules are left unchecked)."""
    fresh: dict[str, Any] = {}
    restarts = 0
    while batches:
        jobs: list[Job] = [{**base, "modules": batch} for batch in batches if batch]
        retry: list[list[tuple[str, str, str]]] = []
        outcomes = run_jobs(CHECK_BATCH, jobs, budget=budget, zygote=zygote,
                            meanwhile=_import_assembly)
        for job, outcome in zip(jobs, outcomes, strict=True):
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
