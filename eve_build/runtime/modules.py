"""What a host changes in `sys.path` and `sys.modules` while it lives, and undoes.

The compiled agent's `sys_path` folders go first on sys.path, and the agent folder
is importable as the synthetic package AGENT_PACKAGE (`eve_agent`) until the host
closes. An extension package imported earlier from another place (a previous
build in another folder) is forgotten, so this host imports the build it was
compiled against.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.machinery
import sys
import threading
from collections.abc import Iterable
from pathlib import Path

from eve_build.formats.compiled import AGENT_PACKAGE
from eve_build.load.importer import isolated_package

_held: dict[str, int] = {}
"""sys.path entries hosts added, with how many open hosts use each: the last to close
removes it (hosts may close in any order)."""
_held_lock = threading.Lock()


class ModuleScope:
    """sys.path entries and the agent package one host owns until `close()`."""

    def __init__(self) -> None:
        self._added: list[str] = []
        self._stack = contextlib.ExitStack()

    def add_paths(self, paths: Iterable[Path]) -> None:
        """Put each folder first on sys.path (in the given order)."""
        entries = [str(path.resolve()) for path in paths]
        with _held_lock:
            for entry in reversed(entries):
                if entry in _held:  # a host added it: share it
                    if entry not in self._added:
                        _held[entry] += 1
                        self._added.append(entry)
                elif entry not in sys.path:  # there before any host: never removed
                    _held[entry] = 1
                    self._added.append(entry)
                with contextlib.suppress(ValueError):
                    sys.path.remove(entry)
                sys.path.insert(0, entry)
        importlib.invalidate_caches()

    def forget_stale(self, import_names: Iterable[str]) -> None:
        """Drop imported packages that a fresh import would now find somewhere else."""
        for name in import_names:
            module = sys.modules.get(name)
            if module is None or _is_current(name, getattr(module, "__path__", None)):
                continue
            for key in [k for k in sys.modules if k == name or k.startswith(f"{name}.")]:
                del sys.modules[key]
        importlib.invalidate_caches()

    def install_agent(self, agent_dir: Path) -> None:
        """Make `agent_dir` importable as AGENT_PACKAGE until `close()`."""
        self._stack.enter_context(isolated_package(AGENT_PACKAGE, agent_dir))

    def close(self) -> None:
        self._stack.close()
        with _held_lock:
            for entry in self._added:
                _held[entry] -= 1
                if _held[entry] == 0:
                    del _held[entry]
                    with contextlib.suppress(ValueError):
                        sys.path.remove(entry)
        self._added.clear()


def _is_current(name: str, paths: Iterable[str] | None) -> bool:
    """True when `name` would be imported again from where it was imported."""
    spec = importlib.machinery.PathFinder.find_spec(name)
    if spec is None or paths is None or spec.submodule_search_locations is None:
        return True  # not found on sys.path (another finder provides it): leave it alone
    fresh = {str(Path(p).resolve()) for p in spec.submodule_search_locations}
    return fresh == {str(Path(p).resolve()) for p in paths}
