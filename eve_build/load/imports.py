"""Import agent and extension code for one compile, and put everything back afterwards.

Inside `loading_environment`, the agent folder imports as AGENT_PACKAGE, the
workspace extension outputs come first on `sys.path`, and the mounted packages are
imported fresh (what `sys.modules` held under their names is restored on exit), so a
long-lived process (`eve dev`, tests) never sees a stale build.

Mount files are executed fresh each time (`exec_file`): two mounts may evaluate the
same file under different parent bindings.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import sys
import traceback
import types
from collections.abc import Iterable, Iterator
from pathlib import Path

from eve_build.diagnostics import Diagnostic, error
from eve_build.errors import describe_syntax_error
from eve_build.formats.compiled import AGENT_PACKAGE
from eve_build.load import progress
from eve_build.load.importer import isolated_package


@contextlib.contextmanager
def loading_environment(agent_dir: Path, search_path: Iterable[Path],
                        tops: Iterable[str]) -> Iterator[None]:
    names = set(tops)
    saved_path = list(sys.path)
    saved = {k: v for k, v in sys.modules.items() if k.split(".")[0] in names}
    for key in saved:
        del sys.modules[key]
    sys.path[:0] = [str(p) for p in search_path]
    importlib.invalidate_caches()
    try:
        with isolated_package(AGENT_PACKAGE, agent_dir):
            yield
    finally:
        for key in [k for k in sys.modules if k.split(".")[0] in names]:
            del sys.modules[key]
        sys.modules.update(saved)
        sys.path[:] = saved_path


def import_module(dotted: str, shown: str, file: Path | None = None
                  ) -> tuple[types.ModuleType | None, list[Diagnostic]]:
    """Import `dotted`; a failure becomes a diagnostic on `shown`."""
    progress.begin(shown)
    try:
        return importlib.import_module(dotted), []
    except BaseException as exc:
        if isinstance(exc, KeyboardInterrupt) and not progress.in_worker():
            raise
        return None, [_failure(exc, shown, file)]


def exec_file(dotted: str, path: Path, shown: str) -> tuple[types.ModuleType | None,
                                                             list[Diagnostic]]:
    """Run the file as a fresh module named `dotted` (not left in `sys.modules`)."""
    spec = importlib.util.spec_from_file_location(dotted, path)
    if spec is None or spec.loader is None:
        return None, [error("load/import-failed", shown, f"`{shown}` cannot be loaded",
                            "check that the file exists and ends in `.py`")]
    module = importlib.util.module_from_spec(spec)
    previous = sys.modules.get(dotted)
    sys.modules[dotted] = module
    progress.begin(shown)
    try:
        spec.loader.exec_module(module)
    except BaseException as exc:
        if isinstance(exc, KeyboardInterrupt) and not progress.in_worker():
            raise
        return None, [_failure(exc, shown, path)]
    finally:
        if previous is None:
            sys.modules.pop(dotted, None)
        else:
            sys.modules[dotted] = previous
    return module, []


def _failure(exc: BaseException, shown: str, file: Path | None) -> Diagnostic:
    if isinstance(exc, SyntaxError) and (file is None or exc.filename == str(file)):
        return error("load/syntax-error", shown, describe_syntax_error(exc),
                     "fix the syntax error on this line", line=exc.lineno)
    line = None
    if file is not None:
        for frame in traceback.extract_tb(exc.__traceback__):
            if Path(frame.filename) == file:
                line = frame.lineno
    hint = "fix the error; a mount or override file must import without failing"
    if isinstance(exc, ModuleNotFoundError):
        hint = (f"install `{exc.name}` into this environment, or fix the import"
                if exc.name else hint)
    return error("load/import-failed", shown,
                 f"importing `{shown}` raised {type(exc).__name__}: {exc}", hint, line=line)
