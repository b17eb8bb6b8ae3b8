"""Build the source-backed extensions the agent mounts before the agent: skip current
ones, build the rest (in parallel, one Python process each: building imports user code);
a failure stops the agent build.

With `scratch` set (`eve info`, which writes nothing), a stale member is copied into the
scratch folder and built there, so the project is left untouched.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from eve_build.consumer.freshness import is_up_to_date
from eve_build.diagnostics import Diagnostic, Severity, error
from eve_build.engine import lifeline
from eve_build.engine.cache import locate_cache_dir
from eve_build.engine.stamp import discard_stamp
from eve_build.errors import DiagnosticsError, EveBuildError
from eve_build.project.pyproject import PYPROJECT

State = Literal["up-to-date", "built", "failed"]
_SCRATCH_IGNORED = ("dist", ".venv", ".git", ".eve")


@dataclass(frozen=True)
class MemberStatus:
    """One workspace extension and what `eve build` did with it."""

    name: str
    root: Path
    output_dir: Path  # the folder that goes on sys.path (`build/eve`)
    state: State
    import_name: str = ""


def prepare_members(
    roots: list[Path], app_root: Path, *, scratch: Path | None = None,
    mounted: set[str] | None = None,
    use_cache: bool = True,
) -> tuple[list[MemberStatus], list[Diagnostic]]:
    """Build every stale extension project among `roots` that the agent mounts; return each
    mounted one's status and any errors.

    `mounted` holds the modules the agent's mount files import (None: every root). A
    built extension's nested mount files add theirs, so a nested mount's package is
    prepared in a following round. An unmounted project is never built, so a broken one
    cannot fail the agent.
    """
    from eve_build.consumer.sources import derive_imported_modules, find_nested_mount_files
    from eve_build.extension.build import locate_extension_project

    statuses: list[MemberStatus] = []
    found: list[Diagnostic] = []
    pending = list(dict.fromkeys(roots))
    wanted = None if mounted is None else set(mounted)
    while pending:
        stale: list[MemberStatus] = []
        waiting: list[Path] = []
        for root in pending:
            try:
                project = locate_extension_project(root)
            except DiagnosticsError as exc:
                if wanted is None or _module_name(root.name) in wanted:
                    found.extend(_failed(root, root.name, app_root, exc.diagnostics))
                continue
            if wanted is not None and project.import_name not in wanted:
                waiting.append(root)
                continue
            status = MemberStatus(project.name, root, project.output_dir, "up-to-date",
                                  project.import_name)
            if is_up_to_date(project):
                statuses.append(status)
            else:  # a stale output must not be vouched for by the last build's stamp
                discard_stamp(locate_cache_dir(project.output_dir))
                stale.append(status)
        built = ([_copy_to_scratch(s, scratch, len(statuses) + i) for i, s in enumerate(stale)]
                 if scratch else stale)
        for status, copy, (problems, message) in zip(
            stale, built, _build_all([s.root for s in built], use_cache), strict=True
        ):
            if message is None:
                statuses.append(replace(copy, state="built"))
                continue
            found.extend(_failed(status.root, status.name, app_root, problems, message))
            statuses.append(replace(status, state="failed"))
        if wanted is None:
            break
        nested = derive_imported_modules(
            path for s in statuses if s.state != "failed"
            for path in find_nested_mount_files(s.output_dir / s.import_name))
        if not nested - wanted:
            break
        wanted |= nested
        pending = waiting
    return sorted(statuses, key=lambda s: s.name), found


def _module_name(folder: str) -> str:
    return folder.replace("-", "_").replace(".", "_").lower()


def _copy_to_scratch(status: MemberStatus, scratch: Path, index: int) -> MemberStatus:
    target = scratch / ".scratch" / f"{index}-{status.root.name}"
    top = status.output_dir.relative_to(status.root).parts[0]

    def ignore(folder: str, names: list[str]) -> set[str]:
        skipped = {"__pycache__"}
        if Path(folder) == status.root:
            skipped |= {top, *_SCRATCH_IGNORED}
        return skipped & set(names)

    shutil.copytree(status.root, target, symlinks=True, ignore=ignore)
    output = target / status.output_dir.relative_to(status.root)
    return replace(status, root=target, output_dir=output)


def _build_all(roots: list[Path], use_cache: bool = True
               ) -> list[tuple[list[Diagnostic], str | None]]:
    """One stale member builds in this process (isolated imports, as `eve extension build`);
    several build in parallel, each in its own Python process."""
    if len(roots) <= 1:
        return [build_member(root, use_cache=use_cache) for root in roots]
    workers = min(len(roots), os.cpu_count() or 1)
    with lifeline.dying_together(), ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(lambda root: _build_in_process(root, use_cache), roots))


def _build_in_process(root: Path, use_cache: bool = True
                      ) -> tuple[list[Diagnostic], str | None]:
    """Run `build_member` in a fresh interpreter (`python -m eve_build.consumer.members`).

    A subprocess rather than multiprocessing: spawn re-runs the caller's `__main__`, which a
    script calling `build_agent()` without a main guard cannot survive.
    """
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    with tempfile.TemporaryDirectory(prefix="eve-member-") as folder:
        result = Path(folder) / "result.json"
        flags = [f"--parent={os.getpid()}"] + ([] if use_cache else ["--no-cache"])
        with subprocess.Popen([sys.executable, "-m", __name__, str(root), str(result), *flags],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=env) as process:
            lifeline.track(process.pid)  # killed with this process, on any signal
            try:
                _, stderr = process.communicate()
            finally:
                lifeline.untrack(process.pid)
        try:
            data = json.loads(result.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            last = (stderr.strip().splitlines() or ["no output"])[-1]
            return [], f"the build process failed ({last})"
    problems = [Diagnostic(file=d["file"], line=d["line"], code=d["code"], message=d["message"],
                           hint=d["hint"], severity=Severity(d["severity"]))
                for d in data["diagnostics"]]
    return problems, data["message"]


def build_member(root: Path, *, use_cache: bool = True
                 ) -> tuple[list[Diagnostic], str | None]:
    """Build one extension package; (diagnostics, None) on success, else a failure message."""
    from eve_build.extension.build import build_extension

    try:
        build_extension(root, use_cache=use_cache)
    except DiagnosticsError as exc:
        return list(exc.diagnostics), exc.message
    except EveBuildError as exc:
        return [], exc.message
    except Exception as exc:  # an unexpected failure must still name the package
        return [], f"{type(exc).__name__}: {exc}"
    return [], None


def _failed(root: Path, name: str, app_root: Path, problems: list[Diagnostic],
            message: str = "") -> list[Diagnostic]:
    folder = Path(os.path.relpath(root, app_root)).as_posix()
    moved = [replace(d, file=f"{folder}/{d.file}" if d.file else folder) for d in problems]
    reason = f": {message}" if message else ""
    return [*moved, error(
        "workspace/extension-build-failed", f"{folder}/{PYPROJECT}",
        f"the workspace extension `{name}` in `{folder}` failed to build{reason}; the agent "
        "is not built", f"fix the errors above in `{folder}`, or build it alone with "
        f"`eve extension build --path {folder}`",
    )]


def _main(argv: list[str]) -> int:
    """Worker entry point: build `argv[0]`, write the outcome as JSON to `argv[1]`."""
    parent = next((int(a.split("=", 1)[1]) for a in argv[2:] if a.startswith("--parent=")),
                  None)
    if parent is not None:
        lifeline.bind_to_parent(parent)  # ends with `eve build`, and its workers with it
    problems, message = build_member(Path(argv[0]), use_cache="--no-cache" not in argv[2:])
    data = {"message": message, "diagnostics": [d.to_json() for d in problems]}
    Path(argv[1]).write_text(json.dumps(data), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(_main(sys.argv[1:]))
