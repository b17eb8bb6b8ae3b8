"""The import step of `eve build` / `eve info`, in one worker process under the budget.

Agent files, mount files and the mounted extensions' `extension.py` are user code. The
compile step that imports them (`consumer.compile.import_and_assemble`) runs in a
worker; the parent gets back the compiled agent as JSON and the diagnostics, so a
hang, `os._exit` or a crash at import becomes a diagnostic naming the file.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from eve_build.diagnostics import Diagnostic
from eve_build.engine.workers import run_jobs
from eve_build.project.budget import DEFAULT_IMPORT_TIMEOUT, read_import_timeout

if TYPE_CHECKING:
    from eve_build.consumer.agent_files import DirectoryMount
    from eve_build.consumer.mounts import MountSite
    from eve_build.consumer.packages import LocatedMount
    from eve_build.formats.compiled import CompiledAgent
    from eve_build.project.app import App
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


def import_in_worker(job: ImportJob, run: Callable[[ImportJob], dict[str, Any]]
                     ) -> tuple[CompiledAgent | None, list[Diagnostic]]:
    """`run(job)` in a worker; a hang or crash is a diagnostic.

    `run` (`consumer.compile.run_import_job`, a module-level function the worker imports
    by name) returns `{"compiled": <JSON or None>, "diagnostics": [...]}`; it is passed
    in so that the engine never imports the consumer."""
    from eve_build.formats.compiled import CompiledAgent

    budget, found = read_import_timeout(DEFAULT_IMPORT_TIMEOUT)
    if found:
        return None, found
    [outcome] = run_jobs(run, [job], budget=budget)
    found = list(outcome.found)
    if outcome.failure is not None:
        return None, [*found, outcome.failure]
    result = outcome.result
    found = [Diagnostic.from_json(d) for d in result["diagnostics"]] + found
    if result["compiled"] is None:
        return None, found
    return CompiledAgent.model_validate(result["compiled"]), found
