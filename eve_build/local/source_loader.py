"""Import local extensions from their source bytes: never from a bytecode cache.

    module = import_source(name, file, verify=digests, base=folder)
    register_package(name, folder, verify=digests, base=folder)  # `from . import helpers`

Python's own loaders run `__pycache__/*.pyc` instead of the source when the cache
claims to match, and an unchecked-hash `.pyc` claims that whatever the source says.
Trust approves the project folder's source bytes (eve_build.local.trust), so a file
planted in `__pycache__` after approval would run unapproved code. Here every local
extension module is compiled from the bytes of its `.py` file, read once, and no
bytecode is read or written. With `verify` (the project folder's per-file sha256
taken by the trust check), a file whose bytes differ from the checked ones, or one
the check did not see, is refused: what runs is exactly what was approved.

Inside a folder extension only `.py` modules and sub-folders import relatively; a
sourceless `.pyc` or a compiled module there is not found (it has no approved source).
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
import threading
import types
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from eve_build.userfile import read_user_bytes

Digests = Mapping[str, str]
"""Relative POSIX path under `base` -> sha256 hex digest of the approved bytes."""


class UnapprovedSourceError(ImportError):
    """A module's bytes are not the ones the trust check approved."""


@dataclass(frozen=True)
class _Root:
    folder: Path
    verify: Digests | None
    base: Path


class SourceLoader(importlib.abc.Loader):
    """Execute one `.py` file compiled from its bytes (a folder without one: empty)."""

    def __init__(self, file: Path | None, root: _Root | None) -> None:
        self.file = file
        self.root = root

    def create_module(self, _spec: importlib.machinery.ModuleSpec) -> types.ModuleType | None:
        return None

    def exec_module(self, module: types.ModuleType) -> None:
        if self.file is None:
            return
        data = read_user_bytes(self.file, what="local extension module").data
        if self.root is not None and self.root.verify is not None:
            _verify(self.file, data, self.root)
        code = compile(data, str(self.file), "exec", dont_inherit=True)
        exec(code, module.__dict__)  # the module's own code, as import runs it


def _verify(file: Path, data: bytes, root: _Root) -> None:
    relative = Path(os.path.relpath(file, root.base)).as_posix()
    expected = root.verify.get(relative) if root.verify is not None else None
    if expected != hashlib.sha256(data).hexdigest():
        raise UnapprovedSourceError(
            f"`{relative}` is not the file that was approved (it changed after the trust "
            "check, or the check did not cover it); it was not run")


class _Finder(importlib.abc.MetaPathFinder):
    """Answers for every module under a registered package name, from source only."""

    def __init__(self) -> None:
        self.roots: dict[str, _Root] = {}

    def find_spec(self, fullname: str, _path: Sequence[str] | None,
                  _target: types.ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        head, _, rest = fullname.partition(".")
        root = self.roots.get(head)
        if root is None or not rest:
            return None
        where = root.folder.joinpath(*rest.split("."))
        source = where.with_name(where.name + ".py")
        if source.is_file():
            return importlib.util.spec_from_file_location(
                fullname, source, loader=SourceLoader(source, root))
        if where.is_dir():
            init = where / "__init__.py"
            if init.is_file():
                spec = importlib.util.spec_from_file_location(
                    fullname, init, loader=SourceLoader(init, root))
            else:
                spec = importlib.util.spec_from_loader(fullname, SourceLoader(None, root),
                                                       is_package=True)
            if spec is not None:
                spec.submodule_search_locations = []  # only this finder looks inside
            return spec
        raise ModuleNotFoundError(f"No module named {fullname!r} (no `{source.name}` beside "
                                  "the extension)", name=fullname)


_FINDER = _Finder()
_LOCK = threading.Lock()


def register_package(name: str, folder: Path, *, verify: Digests | None = None,
                     base: Path | None = None) -> types.ModuleType:
    """A top-level package `name` whose submodules import from `folder`'s sources."""
    with _LOCK:
        if _FINDER not in sys.meta_path:
            sys.meta_path.insert(0, _FINDER)
        _FINDER.roots[name] = _Root(folder, verify, base or folder)
    package = types.ModuleType(name)
    package.__path__ = []  # nothing but _FINDER resolves its submodules
    sys.modules[name] = package
    return package


def forget_package(name: str) -> None:
    with _LOCK:
        _FINDER.roots.pop(name, None)


def import_source(name: str, file: Path, *, verify: Digests | None = None,
                  base: Path | None = None) -> types.ModuleType:
    """Import `file` as module `name` from its bytes (checked against `verify`)."""
    root = _Root(file.parent, verify, base or file.parent)
    spec = importlib.util.spec_from_file_location(name, file, loader=SourceLoader(file, root))
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)  # type: ignore[union-attr]
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module
