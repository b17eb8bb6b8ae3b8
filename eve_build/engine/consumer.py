"""The import step of `eve build` / `eve info`, in one worker process under the budget.

Agent files, mount files and the mounted extensions' `extension.py` are user code. The
compile step that imports them (`consumer.compile.import_and_assemble`) runs in a
worker; the parent gets back the compiled agent as JSON and the diagnostics, so a
hang, `os._exit` or a crash at import becomes a diagnostic naming the file.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from eve_build.diagnostics import Diagnostic
from eve_build.engine.workers import run_jobs
from eve_build.project.budget import DEFAULT_IMPORT_TIMEOUT, read_import_timeout

if TYPE_CHECKING:
    from eve_build.consumer.agent_files import DirectoryMount
    from eve_build.consumer.app import App
    from eve_build.consumer.mounts import MountSite
    from eve_build.consumer.packages import LocatedMount
    from eve_build.formats.compiled import CompiledAgent
    from eve_build.source.layout import AgentTree


@dataclass(frozen=True)
class ImportJob:
    """Everything the import step needs, found without importing user code."""

    app: App
    tree: AgentTree
    directories: list[DirectoryMount]
    sites: list[MountSite]
    located: list[LocatedMount]
    outputs: list[Path]


def _run(job: ImportJob) -> dict[str, Any]:
    from eve_build.consumer.compile import import_and_assemble

    compiled, found = import_and_assemble(job)
    return {"compiled": compiled.model_dump(by_alias=True) if compiled is not None else None,
            "diagnostics": [d.to_json() for d in found]}


def import_in_worker(job: ImportJob) -> tuple[CompiledAgent | None, list[Diagnostic]]:
    """`import_and_assemble(job)` in a worker; a hang or crash is a diagnostic."""
    from eve_build.formats.compiled import CompiledAgent

    budget, found = read_import_timeout(DEFAULT_IMPORT_TIMEOUT)
    if found:
        return None, found
    [outcome] = run_jobs(_run, [job], budget=budget)
    found = list(outcome.found)
    if outcome.failure is not None:
        return None, [*found, outcome.failure]
    result = outcome.result
    found = [Diagnostic.from_json(d) for d in result["diagnostics"]] + found
    if result["compiled"] is None:
        return None, found
    return CompiledAgent.model_validate(result["compiled"]), found
