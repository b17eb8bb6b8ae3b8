"""Import the modules of a source tree under a package name, reporting failures.

The tree is imported as `<package>.<module>` with a synthetic parent package whose
`__path__` is the source folder, so relative imports (`from ..extension import
extension`) work exactly as they will in the generated package. Whatever
`sys.modules` held under that name before is put back afterwards (isolations of one
name open at once may close in any order: see isolated_package).
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import sys
import threading
import traceback
import types
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from eve_build.diagnostics import Diagnostic, error
from eve_build.errors import describe_syntax_error
from eve_build.load import progress
from eve_build.load.signatures import find_unknown_argument
from eve_build.userfile import read_user_text


@dataclass
class LoadedModules:
    """Imported modules by their path relative to the source root."""

    package: str
    modules: dict[str, types.ModuleType] = field(default_factory=dict)
    failed: set[str] = field(default_factory=set)


@dataclass(eq=False)
class _Isolation:
    """One active isolated_package: the entries of its top-level package it replaced."""

    saved: dict[str, types.ModuleType]


_isolations: dict[str, list[_Isolation]] = {}  # by top-level package, oldest first
_isolations_lock = threading.Lock()


@contextlib.contextmanager
def isolated_package(package: str, source: Path) -> Iterator[None]:
    """Make `package` (dotted, e.g. `acme_crm.extension`) import from `source` for a while.

    The isolations of one top-level package form a stack (two agents open in one
    process): closing the innermost gives back what was there before it; closing an
    older one leaves the current entries (the newer one's) alone, and the newer one
    gives back, when it closes, what was there before the older one."""
    top = package.split(".")[0]
    with _isolations_lock:
        saved = {k: v for k, v in sys.modules.items() if k == top or k.startswith(f"{top}.")}
        for key in saved:
            del sys.modules[key]
        parts = package.split(".")
        for depth in range(1, len(parts) + 1):
            name = ".".join(parts[:depth])
            module = types.ModuleType(name)
            module.__path__ = [str(source)] if depth == len(parts) else []
            module.__package__ = name
            sys.modules[name] = module
        isolation = _Isolation(saved)
        _isolations.setdefault(top, []).append(isolation)
    importlib.invalidate_caches()
    try:
        yield
    finally:
        with _isolations_lock:
            _give_back(top, isolation)


def _give_back(top: str, isolation: _Isolation) -> None:
    stack = _isolations[top]
    at = stack.index(isolation)
    del stack[at]
    if at < len(stack):  # a newer one is open: it gives back what this one replaced
        stack[at].saved = isolation.saved
        return
    if not stack:
        del _isolations[top]
    for key in [k for k in sys.modules if k == top or k.startswith(f"{top}.")]:
        del sys.modules[key]
    sys.modules.update(isolation.saved)


def import_modules(
    package: str, source: Path, paths: list[str], *, display: str, package_root: Path
) -> tuple[LoadedModules, list[Diagnostic]]:
    """Import each module (paths relative to `source`) inside an active isolated_package."""
    loaded = LoadedModules(package=package)
    found: list[Diagnostic] = []
    for path in paths:
        dotted = f"{package}.{path.removesuffix('.py').replace('/', '.')}"
        progress.begin(f"{display}{path}")
        try:
            loaded.modules[path] = importlib.import_module(dotted)
        except SyntaxError as exc:
            loaded.failed.add(path)
            file = _shown(exc.filename, source, display, package_root) or f"{display}{path}"
            found.append(error(
                "load/syntax-error", file, describe_syntax_error(exc),
                "fix the syntax error on this line", line=exc.lineno,
            ))
        except BaseException as exc:
            if isinstance(exc, KeyboardInterrupt) and not progress.in_worker():
                raise
            loaded.failed.add(path)
            shown, line = _innermost_user_frame(exc, source, display, package_root)
            unknown = find_unknown_argument(exc)
            if unknown is not None:
                found.append(error("load/definition-argument-unknown",
                                   shown or f"{display}{path}", unknown[0], unknown[1],
                                   line=line))
                continue
            found.append(error(
                "load/import-failed", shown or f"{display}{path}",
                f"importing `{display}{path}` raised {type(exc).__name__}: {exc}",
                _import_hint(exc, package), line=line,
            ))
    return loaded, found


def _shown(filename: str | None, source: Path, display: str, package_root: Path) -> str | None:
    if not filename:
        return None
    path = Path(filename)
    try:
        return f"{display}{path.resolve().relative_to(source.resolve()).as_posix()}"
    except ValueError:
        try:
            return path.resolve().relative_to(package_root.resolve()).as_posix()
        except ValueError:
            return None


def _innermost_user_frame(
    exc: BaseException, source: Path, display: str, package_root: Path
) -> tuple[str | None, int | None]:
    found: tuple[str | None, int | None] = (None, None)
    for frame in traceback.extract_tb(exc.__traceback__):
        shown = _shown(frame.filename, source, display, package_root)
        if shown is not None and shown.startswith(display):
            found = (shown, frame.lineno)
    return found


def _import_hint(exc: BaseException, package: str) -> str:
    if isinstance(exc, ModuleNotFoundError) and (exc.name or "").startswith(f"{package}."):
        return "fix the import path: no module of that name exists in the source tree"
    if isinstance(exc, ModuleNotFoundError):
        missing = exc.name or "the module"
        return (f"install `{missing}` and list it in `[project].dependencies`, or fix the "
                "import path (relative imports start with `.`)")
    return "fix the error above; a module must import without side effects that can fail"


def find_assignment_line(module: types.ModuleType, name: str) -> int | None:
    """The line of the last top-level statement that binds `name`, if any."""
    file = getattr(module, "__file__", None)
    if not file:
        return None
    try:
        tree = ast.parse(read_user_text(Path(file), what="module"))
    except (OSError, SyntaxError, UnicodeDecodeError):
        return None
    line: int | None = None
    for node in tree.body:
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, ast.AnnAssign | ast.AugAssign):
            targets = [node.target]
        for target in targets:
            if isinstance(target, ast.Name) and target.id == name:
                line = node.lineno
    return line
