"""`eve build`: compile the agent and publish `.eve/`.

    result = build_agent(Path("my-agent"))

`.eve/discovery/diagnostics.json` always describes the latest attempt, also a failed
one. `.eve/compile/compiled-agent.json` is published atomically and only by a build
that succeeded, so a failed build leaves the last good one in place. A file whose
bytes would not change is not rewritten (a no-op build touches nothing).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from eve_build._version import __version__
from eve_build.consumer.compile import Compilation, run_compilation
from eve_build.consumer.compiled import (
    COMPILED_PATH,
    DIAGNOSTICS_PATH,
    CompiledAgent,
    serialize_compiled,
)
from eve_build.consumer.members import MemberStatus
from eve_build.diagnostics import Diagnostic, summarize
from eve_build.errors import DiagnosticsError
from eve_build.output.writer import write_tree


@dataclass(frozen=True)
class BuildResult:
    app_root: Path
    compiled: CompiledAgent
    warnings: tuple[Diagnostic, ...]
    extensions: tuple[MemberStatus, ...]  # the workspace's extensions: built or up to date
    written: bool  # False when compiled-agent.json was already exactly this

    @property
    def compiled_path(self) -> Path:
        return self.app_root / COMPILED_PATH


def build_agent(app_root: Path, agent: str | None = None) -> BuildResult:
    """Build the agent at `app_root` (or `agents/<agent>/` of a workspace) into `.eve/`."""
    result = run_compilation(app_root, agent, write_members=True)
    if result.app is None:
        raise DiagnosticsError("cannot build the agent", result.diagnostics)
    root = result.app.root
    write_if_changed(root / DIAGNOSTICS_PATH, serialize_diagnostics(result))
    if result.compiled is None:
        raise DiagnosticsError(f"cannot build the agent in `{root}`", result.diagnostics)
    written = write_if_changed(root / COMPILED_PATH, serialize_compiled(result.compiled))
    return BuildResult(app_root=root, compiled=result.compiled,
                       warnings=tuple(result.diagnostics.warnings),
                       extensions=tuple(result.members), written=written)


def serialize_diagnostics(result: Compilation) -> str:
    status = "failed" if result.compiled is None else "ready"
    data = {"status": status, "builtWithEve": __version__,
            **summarize(result.diagnostics.sorted())}
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def write_if_changed(path: Path, text: str) -> bool:
    """Publish one file atomically (its folder is swapped in whole); False if unchanged."""
    data = text.encode("utf-8")
    try:
        if path.read_bytes() == data:
            return False
    except OSError:
        pass
    write_tree(path.parent, {path.name: data})
    return True
