"""The consumer pipeline: app -> workspace extensions -> discover -> mounts -> compatibility
-> (only then) import -> config -> overrides -> compiled agent.

    compiled, diagnostics = compile_agent(Path("my-agent"))

Every problem is a diagnostic; `compiled` is None when any is an error. Nothing of an
extension is imported before every mount's package passed the compatibility check.
"""

from __future__ import annotations

import contextlib
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eve_build.consumer.agent_files import discover_directory_mounts, load_agent_files
from eve_build.consumer.assemble import assemble_agent, derive_sys_path
from eve_build.consumer.evaluate import evaluate_mounts
from eve_build.consumer.members import MemberStatus, prepare_members
from eve_build.consumer.mounts import discover_mounts
from eve_build.consumer.packages import locate_mounts
from eve_build.consumer.sources import (
    derive_imported_modules,
    find_agent_mount_files,
    find_installed_sources,
)
from eve_build.consumer.workspace import locate_workspace
from eve_build.diagnostics import Diagnostic, Diagnostics, error
from eve_build.engine.consumer import ImportJob, import_in_worker
from eve_build.formats.compiled import CompiledAgent, walk_trees
from eve_build.load.imports import loading_environment
from eve_build.naming import TOOL_NAME_LIMIT
from eve_build.project.agent_pyproject import read_agent_pyproject
from eve_build.project.app import App, locate_app
from eve_build.slots import INSTRUCTIONS_MARKDOWN
from eve_build.source.discover import discover_source


@dataclass
class Compilation:
    """Everything one compile found out."""

    app: App | None = None
    compiled: CompiledAgent | None = None
    diagnostics: Diagnostics = field(default_factory=Diagnostics)
    members: list[MemberStatus] = field(default_factory=list)


def compile_agent(app_root: Path, agent: str | None = None
                  ) -> tuple[CompiledAgent | None, Diagnostics]:
    """Compile in memory: nothing in the project is written (stale workspace extensions are
    built in a scratch copy). Raises UsageError for a wrong `agent`."""
    result = run_compilation(app_root, agent, write_members=False)
    return result.compiled, result.diagnostics


def run_compilation(start: Path, agent: str | None = None, *,
                    write_members: bool = True, use_cache: bool = True) -> Compilation:
    result = Compilation()
    app, found = locate_app(start, agent)
    result.diagnostics.extend(found)
    if app is None:
        return result
    result.app = app
    workspace, found = locate_workspace(app.root)
    result.diagnostics.extend(found)
    _, problems = read_agent_pyproject(app.root)
    said = {d.file for d in found if d.code == "workspace/pyproject-invalid"}
    problems = [p for p in problems if not (p.code == "project/pyproject-invalid"
                                            and p.file in said)]  # said once, by the workspace
    if problems:  # before any member is built: nothing is written
        result.diagnostics.extend(problems)
        return result
    scratch = contextlib.nullcontext(None) if write_members else tempfile.TemporaryDirectory(
        prefix="eve-info-")
    with scratch as folder:
        roots = [*(workspace.extension_members() if workspace else []),
                 *find_installed_sources()]
        members, found = prepare_members(
            roots, app.root, scratch=Path(folder) if folder else None,
            mounted=derive_imported_modules(find_agent_mount_files(app)),
            use_cache=use_cache)
        result.members = members
        result.diagnostics.extend(found)
        if not result.diagnostics.has_errors:
            result.compiled = _compile(app, [m.output_dir for m in members], result.diagnostics)
    if result.diagnostics.has_errors:
        result.compiled = None
    return result


def find_long_tool_names(compiled: CompiledAgent) -> list[Diagnostic]:
    """Mounted tool names (namespace and `__` included) that providers would refuse."""
    return [error(
        "mount/tool-name-too-long", tool.file,
        f"the tool `{tool.name}` is {len(tool.name)} characters long with its namespace; "
        f"providers accept at most {TOOL_NAME_LIMIT}",
        f"mount `{tool.mount}` under a shorter namespace (rename its mount file), or shorten "
        "the tool's file name",
    ) for tree in walk_trees(compiled.root) for tool in tree.tools
        if len(tool.name) > TOOL_NAME_LIMIT]


def _compile(app: App, outputs: list[Path], collected: Diagnostics) -> CompiledAgent | None:
    layout, found = discover_source(app.agent_dir, display=app.display, package_root=app.root,
                                    role="agent")
    collected.extend(found)
    if layout.tree.instructions is None:
        collected.add(error(
            "agent/instructions-missing", f"{app.display}{INSTRUCTIONS_MARKDOWN}",
            f"the agent has no `{app.display}{INSTRUCTIONS_MARKDOWN}`",
            f"create `{app.display}{INSTRUCTIONS_MARKDOWN}` with what the agent is for and how "
            "it should work",
        ))
    sites, found = discover_mounts(layout.tree, app)
    collected.extend(found)
    directories, found = discover_directory_mounts(sites, app)
    collected.extend(found)
    located, found = locate_mounts(sites, outputs, app.root)
    collected.extend(found)
    if collected.has_errors:
        return None  # compatibility before code: nothing was imported
    compiled, found = import_in_worker(
        ImportJob(app, layout.tree, directories, sites, located, outputs), run_import_job)
    collected.extend(found)
    if compiled is not None:
        collected.extend(find_long_tool_names(compiled))
    return None if collected.errors else compiled


def run_import_job(job: ImportJob) -> dict[str, Any]:
    """`import_and_assemble(job)` as JSON, in the worker `import_in_worker` starts."""
    compiled, found = import_and_assemble(job)
    return {"compiled": compiled.model_dump(by_alias=True) if compiled is not None else None,
            "diagnostics": [d.to_json() for d in found]}


def import_and_assemble(job: ImportJob) -> tuple[CompiledAgent | None, list[Diagnostic]]:
    """Import the agent's files and the mounts, then assemble the compiled agent.

    This runs user code: `import_in_worker` calls it in a worker process."""
    collected = Diagnostics()
    app, outputs = job.app, job.outputs
    with loading_environment(app.agent_dir, outputs, {m.import_name for m in job.located}):
        files, found = load_agent_files(app, job.tree, job.directories, job.sites)
        collected.extend(found)
        evaluated, found = evaluate_mounts(job.located)
        collected.extend(found)
    if collected.errors:
        return None, collected.items
    compiled, found = assemble_agent(app, files, evaluated, derive_sys_path(outputs, app.root))
    collected.extend(found)
    return (None if collected.errors else compiled), collected.items
