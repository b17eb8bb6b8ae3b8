"""The script source: import each local extension's module and call its `setup(ctx)`.

Import and `setup` run together on a worker thread with the host's budget (5 s). A
syntax error, a raise (even SystemExit), running out of time, a missing or
uncallable `setup`, or a return value that is no `Spec` drops that one extension
with a diagnostic naming its file; the others load. A module that hangs is
abandoned on its daemon thread. Modules are compiled from their source bytes
(eve_build.local.source_loader), never from `__pycache__`; a project extension's bytes
must be those the trust check hashed. Each load imports under fresh module names, so a
reload sees the code as it is now; `close()` forgets them.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import itertools
import sys
import threading
import traceback
import types
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from eve_build.diagnostics import Diagnostic, error
from eve_build.local.context import ScriptContext
from eve_build.local.discovery import (
    GLOBAL_FOLDER,
    PROJECT_FOLDER,
    Candidate,
    discover_explicit,
    discover_folder,
    locate_project_folder,
)
from eve_build.local.record import LoadRequest, LocalExtension, derive_binding
from eve_build.naming import derive_identifier
from eve_build.sdk.binding import bind
from eve_build.sdk.local import SPEC_FIELDS, Spec

if TYPE_CHECKING:
    from eve_build.local.source_loader import Digests

MODULE_PREFIX = "_eve_local"
_GENERATIONS = itertools.count(1)


@dataclass
class ScriptSource:
    """Scripts and folders: `-e` paths, then `<project>/.eve/extensions/`, then the global."""

    explicit: Sequence[Path] = ()
    include_project: bool = True
    include_global: bool = True

    def __post_init__(self) -> None:
        self._modules: list[str] = []
        self._approved: tuple[Digests, Path] | None = None  # the project's checked bytes

    def load(self, request: LoadRequest) -> list[LocalExtension]:
        candidates = discover_explicit(self.explicit, Path.cwd())
        untrusted: tuple[Diagnostic, ...] = ()
        project: list[Candidate] = []
        folder = locate_project_folder(request.project_root)
        if self.include_project:
            project = discover_folder(folder, "project", str(PROJECT_FOLDER))
            if project:
                # the trust check and the source loader are imported only when there is a
                # script to load: a plain `eve run` has none (issue 28's offline turn)
                from eve_build.local.trust import check_trust

                check = check_trust(request.project_root, request.eve_home)
                untrusted = () if check.trusted else check.diagnostics
                self._approved = (check.digests, folder)
        if self.include_global:
            home = request.eve_home / GLOBAL_FOLDER
            glob = discover_folder(home, "global", str(home))
        else:
            glob = []
        records: list[LocalExtension] = []
        taken: set[str] = set()  # a shadowed extension is never imported: no side effects
        for candidate in [*candidates, *project, *glob]:
            if candidate.origin == "project" and untrusted:
                records.append(LocalExtension(candidate.name, "project", candidate.shown,
                                              "untrusted", diagnostics=list(untrusted)))
            elif candidate.name in taken:
                records.append(LocalExtension(candidate.name, candidate.origin, candidate.shown,
                                              "shadowed"))
            else:
                taken.add(candidate.name)
                records.append(self._open(candidate, request))
        return records

    def close(self) -> None:
        if not self._modules:
            return
        from eve_build.local.source_loader import forget_package

        for name in self._modules:
            forget_package(name)
            for key in [k for k in sys.modules if k == name or k.startswith(f"{name}.")]:
                del sys.modules[key]
        self._modules.clear()

    def _open(self, candidate: Candidate, request: LoadRequest) -> LocalExtension:
        record = LocalExtension(candidate.name, candidate.origin, candidate.shown,
                                diagnostics=list(candidate.problems))
        if candidate.problems:
            record.status = "dropped"
            return record
        context = ScriptContext(candidate.name, request.project_root, candidate.folder,
                                request.session)
        binding = derive_binding(candidate.name, request.states)
        module = (f"{MODULE_PREFIX}_{next(_GENERATIONS)}_"
                  f"{derive_identifier(candidate.origin)}_{derive_identifier(candidate.name)}")
        self._modules.append(module)
        approved = self._approved if candidate.origin == "project" else None
        outcome = _run_with_budget(
            lambda: _import_and_setup(candidate, module, context, binding, approved),
            request.budget)
        problem = _describe(candidate, outcome, request.budget)
        if problem is not None:
            record.status = "dropped"
            record.diagnostics.append(problem)
            return record
        assert outcome is not None
        record.spec, record.context, record.binding = outcome[1], context, binding
        return record


Outcome = tuple[bool, Any]  # (returned, value or exception); None: out of time


def _run_with_budget(job: Any, budget: float) -> Outcome | None:
    """Run `job()` on a daemon thread; None when it did not end within `budget` seconds."""
    box: list[Outcome] = []
    done = threading.Event()

    def work() -> None:
        try:
            box.append((True, job()))
        except BaseException as exc:  # SystemExit from user code fails this one extension
            box.append((False, exc))
        finally:
            done.set()

    # the caller's context goes with it: `ctx.model` in setup reads the session's model there
    context = contextvars.copy_context()
    threading.Thread(target=lambda: context.run(work), name="eve-local-setup",
                     daemon=True).start()
    return box[0] if done.wait(budget) and box else None


def _import_and_setup(candidate: Candidate, module_name: str, context: ScriptContext,
                      binding: Any, approved: tuple[Digests, Path] | None) -> Any:
    module = _import(candidate, module_name, approved)
    setup = getattr(module, "setup", _MISSING)
    if setup is _MISSING or not callable(setup):
        return _SetupProblem(setup is _MISSING, setup)
    with bind(binding):
        value = setup(context)
        if inspect.isawaitable(value):
            value = asyncio.run(_awaited(value))
    return value


async def _awaited(value: Any) -> Any:
    return await value


def _import(candidate: Candidate, module_name: str,
            approved: tuple[Digests, Path] | None) -> types.ModuleType:
    """Compile from the source bytes, never a `__pycache__` (trust approves sources)."""
    from eve_build.local.source_loader import import_source, register_package

    verify, base = approved if approved is not None else (None, None)
    name = module_name
    if candidate.package:  # siblings import relatively: `from . import helpers`
        register_package(module_name, candidate.folder, verify=verify, base=base)
        name = f"{module_name}.extension"
    return import_source(name, candidate.file, verify=verify, base=base)


_MISSING = object()


@dataclass(frozen=True)
class _SetupProblem:
    missing: bool
    value: Any


def _describe(candidate: Candidate, outcome: Outcome | None, budget: float) -> Diagnostic | None:
    """The diagnostic that drops the extension, or None when setup gave a Spec."""
    shown, name = candidate.shown, candidate.name
    if outcome is None:
        return error("local/timeout", shown, f"`{name}` did not finish importing and `setup` "
                     f"within {budget:g} s; it is not loaded",
                     "move slow work out of import time and setup (do it in a tool or command)")
    returned, value = outcome
    if not returned:
        return _raised(candidate, value)
    if isinstance(value, _SetupProblem):
        what = "defines no `setup`" if value.missing else (
            f"has a `setup` that is a {type(value.value).__name__}, not a function")
        return error("local/setup-missing", shown, f"`{name}` {what}; it is not loaded",
                     "define `def setup(ctx): return Spec(...)` "
                     "(from eve_build.sdk import Spec)")
    if not isinstance(value, Spec):
        return error("local/spec-invalid", shown,
                     f"`setup` of `{name}` returned {type(value).__name__}, not a Spec; it is "
                     "not loaded", "return `Spec(tools=..., commands=..., ...)` "
                     "(from eve_build.sdk import Spec)")
    return None


def _raised(candidate: Candidate, exc: BaseException) -> Diagnostic:
    shown, name = candidate.shown, candidate.name
    if isinstance(exc, SyntaxError):
        own = exc.filename == str(candidate.file)
        where = "" if own or not exc.filename else f" (in `{Path(exc.filename).name}`)"
        return error("local/syntax-error", shown, f"`{name}` does not parse{where}: {exc.msg}",
                     "fix the syntax; the agent runs without this extension meanwhile",
                     line=exc.lineno if own else None)
    if isinstance(exc, TypeError) and "Spec.__init__()" in str(exc):
        return error("local/spec-field-unknown", shown,
                     f"`setup` of `{name}` built a Spec with a field it does not take: {exc}",
                     f"a Spec takes {', '.join(SPEC_FIELDS)}", line=_line(exc, candidate))
    return error("local/setup-failed", shown,
                 f"`{name}` raised {type(exc).__name__}: {exc}; it is not loaded",
                 "fix the error; the agent runs without this extension meanwhile",
                 line=_line(exc, candidate))


def _line(exc: BaseException, candidate: Candidate) -> int | None:
    """The last line of the extension's own file in the traceback."""
    line = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename == str(candidate.file):
            line = frame.lineno
    return line
