"""`eve build`: compile the agent and publish `.eve/`.

    result = build_agent(Path("my-agent"))

`.eve/compile/compiled-agent.json` is published atomically and only by a build that
succeeded, so a failed build leaves the last good one in place. Then
`.eve/discovery/diagnostics.json` is written: it always describes the latest attempt,
also a failed one (a compiled agent that could not be published makes the attempt
failed). Each file is replaced on its own (a temporary file in the same folder,
renamed over it), so readers never see it missing and other files in `.eve/` stay.
A file whose bytes would not change is not rewritten (a no-op build touches nothing).
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from eve_build._version import __version__
from eve_build.consumer.changes import derive_changes
from eve_build.consumer.compile import Compilation, run_compilation
from eve_build.consumer.members import MemberStatus
from eve_build.diagnostics import Diagnostic, error, summarize
from eve_build.errors import DiagnosticsError
from eve_build.formats.compiled import (
    COMPILED_PATH,
    DIAGNOSTICS_PATH,
    CompiledAgent,
    read_compiled,
    serialize_compiled,
)

NEW_FILE_MODE = 0o644  # a published file that did not exist yet; else its mode is kept


@dataclass(frozen=True)
class BuildResult:
    app_root: Path
    compiled: CompiledAgent
    warnings: tuple[Diagnostic, ...]
    extensions: tuple[MemberStatus, ...]  # the workspace's extensions: built or up to date
    written: bool  # False when compiled-agent.json was already exactly this
    changes: tuple[str, ...] = ()  # mounted packages that changed since the last build

    @property
    def compiled_path(self) -> Path:
        return self.app_root / COMPILED_PATH


def build_agent(app_root: Path, agent: str | None = None, *,
                use_cache: bool = True) -> BuildResult:
    """Build the agent at `app_root` (or `agents/<agent>/` of a workspace) into `.eve/`;
    `use_cache=False` builds the workspace's extensions without the build cache."""
    result = run_compilation(app_root, agent, write_members=True, use_cache=use_cache)
    if result.app is None:
        raise DiagnosticsError("cannot build the agent", result.diagnostics)
    root = result.app.root
    compiled, written = result.compiled, False
    before = try_read_compiled(root)
    if compiled is not None:
        try:
            written = write_if_changed(root / COMPILED_PATH, serialize_compiled(compiled))
        except OSError as exc:
            result.diagnostics.add(derive_write_failed(COMPILED_PATH, exc))
            compiled = None
    try:
        write_if_changed(root / DIAGNOSTICS_PATH, serialize_diagnostics(result, compiled))
    except OSError as exc:
        result.diagnostics.add(derive_write_failed(DIAGNOSTICS_PATH, exc))
    if compiled is None or result.diagnostics.has_errors:
        raise DiagnosticsError(f"cannot build the agent in `{root}`", result.diagnostics)
    return BuildResult(app_root=root, compiled=compiled,
                       warnings=tuple(result.diagnostics.warnings),
                       extensions=tuple(result.members), written=written,
                       changes=tuple(derive_changes(before, compiled)))


def try_read_compiled(app_root: Path) -> CompiledAgent | None:
    """The last published compiled agent, or None when there is none readable."""
    try:
        return read_compiled(app_root)
    except (OSError, ValueError):
        return None


def serialize_diagnostics(result: Compilation, compiled: CompiledAgent | None) -> str:
    """`diagnostics.json`: ready when `compiled` was published, else failed."""
    status = "failed" if compiled is None else "ready"
    data = {"status": status, "builtWithEve": __version__,
            **summarize(result.diagnostics.sorted())}
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def derive_write_failed(relative: str, exc: OSError) -> Diagnostic:
    reason = exc.strerror or str(exc) or type(exc).__name__
    return error(
        "output/write-failed", relative,
        f"`{relative}` could not be written: {reason}; the previous one is kept",
        f"check that you may write to `{Path(relative).parent.as_posix()}/` (permissions, "
        "free disk space), then build again",
    )


def write_if_changed(path: Path, text: str) -> bool:
    """Publish one file atomically; False if it already holds exactly `text`."""
    data = text.encode("utf-8")
    try:
        if path.read_bytes() == data:
            return False
    except OSError:
        pass
    replace_file(path, data)
    return True


def replace_file(path: Path, data: bytes) -> None:
    """Write `data` to a temporary file beside `path`, then rename it over `path`.

    Readers see the old file or the new one, never none; on failure the old one stays
    and the temporary file is removed.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = path.stat().st_mode & 0o777
    except OSError:
        mode = NEW_FILE_MODE
    temporary: Path | None = None
    try:
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=f".{path.name}.",
                                         suffix=".tmp", delete=False) as stream:
            temporary = Path(stream.name)
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        temporary.chmod(mode)
        temporary.replace(path)  # os.replace: atomic on one filesystem
    except BaseException:
        if temporary is not None:
            temporary.unlink(missing_ok=True)
        raise
