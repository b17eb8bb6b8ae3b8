"""Evaluate each mount, after every package passed the compatibility check.

For each mount, parents first: import the package's `extension/extension.py` for its
config model, run the mount file (a mount inside an extension's subagent runs inside
the parent mount's binding, so its config may derive from the parent's config), and
validate the config it gives.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from eve_build import slots
from eve_build.consumer.packages import LocatedMount
from eve_build.diagnostics import Diagnostic, error
from eve_build.load.config import BoundConfig, validate_config
from eve_build.load.imports import exec_file, import_module
from eve_build.output.generate import SOURCE_PACKAGE
from eve_build.sdk.binding import Binding, bind
from eve_build.sdk.definitions import Extension, derive_kind
from eve_build.sdk.mount import Mount


@dataclass(frozen=True)
class EvaluatedMount:
    located: LocatedMount
    extension: Extension
    config: BoundConfig


def evaluate_mounts(located: list[LocatedMount]) -> tuple[list[EvaluatedMount],
                                                          list[Diagnostic]]:
    evaluated: dict[str, EvaluatedMount] = {}
    found: list[Diagnostic] = []
    for mount in located:
        parent = mount.site.parent
        parent_mount = evaluated.get(parent.mount_path) if parent is not None else None
        if parent is not None and parent_mount is None:
            continue  # the parent failed and was reported
        result, problems = _evaluate(mount, parent_mount)
        found.extend(problems)
        if result is not None:
            evaluated[mount.site.mount_path] = result
    return list(evaluated.values()), found


@contextlib.contextmanager
def _bound(parent: EvaluatedMount | None) -> Iterator[None]:
    if parent is None:
        yield
        return
    with bind(Binding(parent.extension, parent.config.value, parent.located.site.mount_path,
                      namespace=parent.located.site.namespace)):
        yield


def _evaluate(mount: LocatedMount, parent: EvaluatedMount | None
              ) -> tuple[EvaluatedMount | None, list[Diagnostic]]:
    site, name = mount.site, mount.manifest.package.name
    extension, found = _extension(mount)
    if extension is None:
        return None, found
    with _bound(parent):
        module, found = exec_file(site.module, site.file, site.shown)
        if module is None:
            return None, found
        value: Any = getattr(module, slots.MOUNT_ATTRIBUTE, None)
        if callable(value) and not isinstance(value, Mount):
            try:
                value = value()
            except (Exception, SystemExit) as exc:  # exit included: a mount failure
                return None, [error(
                    "mount/definition-wrong-kind", site.shown,
                    f"`mount` in `{site.shown}` is callable, but calling it with no arguments "
                    f"raised {type(exc).__name__}", "mount with `mount = <factory>(...)`",
                    line=mount.line,
                )]
    if not isinstance(value, Mount):
        return None, [error(
            "mount/definition-wrong-kind", site.shown,
            f"`mount` in `{site.shown}` is {derive_kind(value)}, not a mount of `{name}`",
            f"write `mount = {mount.import_name}(...)` with the factory imported from "
            f"`{mount.import_name}`", line=mount.line,
        )]
    if value.import_name != mount.import_name:
        return None, [error(
            "mount/package-mismatch", site.shown,
            f"`mount` in `{site.shown}` mounts `{value.package}`, but the file imports "
            f"`{mount.import_name}` (`{name}`)",
            "import the mount factory of the extension you mount, and only that one",
            line=mount.line,
        )]
    config, found = validate_config(extension.config_model, value.config, shown=site.shown,
                                    package=name, line=mount.line, defer_factories=True)
    if config is None:
        return None, found
    return EvaluatedMount(mount, extension, config), found


def _extension(mount: LocatedMount) -> tuple[Extension | None, list[Diagnostic]]:
    dotted = f"{mount.import_name}.{SOURCE_PACKAGE}.{slots.EXTENSION_MODULE.removesuffix('.py')}"
    shown = f"{mount.import_name}/{SOURCE_PACKAGE}/{slots.EXTENSION_MODULE}"
    path = mount.package_dir / SOURCE_PACKAGE / slots.EXTENSION_MODULE
    module, found = import_module(dotted, shown, path)
    if module is None:
        return None, [*found, error(
            "load/import-failed", mount.site.shown,
            f"`{mount.site.shown}` mounts `{mount.manifest.package.name}`, whose `{shown}` "
            "failed to import (see above)",
            "reinstall or rebuild the extension; check its dependencies are installed",
            line=mount.line,
        )]
    value = getattr(module, slots.EXTENSION_ATTRIBUTE, None)
    if not isinstance(value, Extension):
        return None, [error(
            "load/definition-wrong-kind", mount.site.shown,
            f"`{shown}` of `{mount.manifest.package.name}` does not define "
            "`extension = define_extension(...)`", "rebuild or reinstall the extension",
            line=mount.line,
        )]
    return value, []
