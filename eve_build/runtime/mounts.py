"""Open each mount: evaluate its file, resolve `env(...)`, validate the config, bind it.

Every problem is a Diagnostic naming the mount file; a config error names the
field and never repeats the value given (it may be a secret).
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Mapping, MutableMapping, Sequence
from pathlib import Path
from typing import Any

from eve_build import slots
from eve_build.capabilities import SOURCE_PACKAGE_DIR as SOURCE_PACKAGE
from eve_build.diagnostics import Diagnostic, error, warning
from eve_build.formats.compiled import CompiledMount
from eve_build.load.config import Loc, find_env_names
from eve_build.load.config import validate_config as check_config
from eve_build.load.imports import exec_file
from eve_build.runtime.redaction import find_env_values
from eve_build.sdk.binding import Binding, bind
from eve_build.sdk.definitions import Extension
from eve_build.sdk.env import ENV_MARKER, Env, is_env_json, resolve_env
from eve_build.sdk.mount import Mount

_MISSING = object()


class MountError(Exception):
    """One mount could not be opened; carries its diagnostics."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        super().__init__("; ".join(d.message for d in diagnostics))
        self.diagnostics = diagnostics


def open_mounts(
    mounts: Sequence[CompiledMount], *, states: MutableMapping[str, Any],
    environ: Mapping[str, str], given: Mapping[str, Mount] | None = None,
    secrets: MutableMapping[str, str] | None = None,
) -> tuple[dict[str, Binding], list[Diagnostic]]:
    """A binding per mount path; a mount inside an extension's subagent opens after its parent.

    `secrets` receives every env value a mount's config reads (variable -> value), also of
    mounts that could not open, so the host can redact them (eve_build.runtime.redaction).
    """
    bindings: dict[str, Binding] = {}
    found: list[Diagnostic] = []
    for compiled in sorted(mounts, key=lambda m: m.mount_path.count("/")):
        parent = bindings.get(compiled.parent_mount) if compiled.parent_mount else None
        try:
            if parent is not None and parent.unavailable:
                raise MountUnavailableError(
                    f"its parent mount is unavailable ({parent.unavailable})", [])
            mount = (given or {}).get(compiled.mount_path) or evaluate_mount(compiled, parent)
            if secrets is not None:
                secrets.update(find_env_values(mount.config, environ))
            bindings[compiled.mount_path] = bind_mount(compiled, mount, states, environ)
        except MountUnavailableError as exc:
            bindings[compiled.mount_path] = Binding(None, None, compiled.mount_path,
                                                    compiled.namespace, states,
                                                    unavailable=exc.reason)
            found.extend(exc.diagnostics)
        except MountError as exc:
            found.extend(exc.diagnostics)
    return bindings, found


class MountUnavailableError(MountError):
    """The mount needs something this environment lacks (an env variable): only what
    needs the mount fails; the diagnostics are warnings."""

    def __init__(self, reason: str, diagnostics: list[Diagnostic]) -> None:
        super().__init__(diagnostics)
        self.reason = reason


def evaluate_mount(compiled: CompiledMount, parent: Binding | None) -> Mount:
    """The mount file's `mount`: a Mount, or a factory called with no arguments."""
    file = compiled.file
    try:
        if parent is not None:  # a subagent's mount may derive its config from the parent's
            with bind(parent):
                value = _evaluate(compiled)
        else:
            value = _evaluate(compiled)
    except (Exception, SystemExit) as exc:  # user code may raise anything, exit included
        raise MountError([error(
            "runtime/mount-failed", file,
            f"evaluating the mount file raised {type(exc).__name__}: {exc}",
            "fix the mount file; it must import and evaluate without errors",
        )]) from None
    if not isinstance(value, Mount):
        missing = value is _MISSING
        raise MountError([error(
            "mount/definition-missing" if missing else "mount/definition-wrong-kind", file,
            "the file does not bind `mount`" if missing else
            f"`mount` is a {type(value).__name__}, not a mount",
            f"assign the extension's factory call: `mount = {compiled.import_name}(...)`",
        )])
    if value.import_name != compiled.import_name:
        raise MountError([error(
            "runtime/mount-stale", file,
            f"the file mounts `{value.import_name}`, but the agent was built with "
            f"`{compiled.import_name}`", "run `eve build` again",
        )])
    return value


def _evaluate(compiled: CompiledMount) -> Any:
    module = (_fresh_module(compiled) if compiled.parent_mount is not None
              else importlib.import_module(compiled.module))
    value = getattr(module, "mount", _MISSING)
    if callable(value) and not isinstance(value, Mount):
        value = value()
    return value


def _fresh_module(compiled: CompiledMount) -> Any:
    """A nested mount file run anew for this parent mount: a module-level
    `extension.config` must read this parent's config, not the first one's."""
    spec = importlib.util.find_spec(compiled.module)
    if spec is None or spec.origin is None:
        raise ImportError(f"no module named {compiled.module!r}")
    module, found = exec_file(compiled.module, Path(spec.origin), compiled.file)
    if module is None:
        raise ImportError(found[0].message if found else f"cannot run {compiled.module!r}")
    return module


def bind_mount(compiled: CompiledMount, mount: Mount, states: MutableMapping[str, Any],
               environ: Mapping[str, str]) -> Binding:
    """Resolve env values and validate the config with the extension's model."""
    file = compiled.file
    missing = find_missing_env(mount.config, environ)
    if missing:
        unset = "; ".join(f"config field `{where}` reads env(\"{name}\"), which is not set"
                          for where, name in missing)
        raise MountUnavailableError(f"the mount `{file}` is unavailable: {unset}", [warning(
            "runtime/env-missing", file,
            f"config field `{where}` of the mount `{compiled.namespace}` reads the environment "
            f"variable `{name}`, which is not set: its tools fail and its hooks do not run",
            f"set `{name}` before loading the agent",
        ) for where, name in missing])
    secrets = find_env_names(dict(mount.config))
    config = resolve_env(dict(mount.config), environ)
    extension = load_extension(compiled)
    return Binding(extension, validate_config(compiled, extension, config, secrets),
                   compiled.mount_path, compiled.namespace, states)


def load_extension(compiled: CompiledMount) -> Extension:
    """`<import>.extension.extension`, the extension's own definition."""
    dotted = (f"{compiled.import_name}.{SOURCE_PACKAGE}."
              f"{slots.EXTENSION_MODULE.removesuffix('.py')}")
    try:
        module = importlib.import_module(dotted)
    except (Exception, SystemExit) as exc:  # user code may raise anything, exit included
        raise MountError([error(
            "runtime/extension-failed", compiled.file,
            f"importing `{compiled.import_name}` ({compiled.package}) raised "
            f"{type(exc).__name__}: {exc}",
            f"install `{compiled.package}` in this environment, or build it again",
        )]) from None
    extension = getattr(module, slots.EXTENSION_ATTRIBUTE, None)
    if not isinstance(extension, Extension):
        raise MountError([error(
            "runtime/extension-failed", compiled.file,
            f"`{dotted}` has no define_extension()",
            f"rebuild `{compiled.package}`",
        )])
    return extension


def validate_config(compiled: CompiledMount, extension: Extension, config: dict[str, Any],
                    secrets: Mapping[Loc, str] | None = None) -> Any:
    """The validated config instance (None for an extension without config)."""
    bound, found = check_config(extension.config_model, config, shown=compiled.file,
                                package=compiled.package, line=None, secrets=secrets)
    errors = [d for d in found if d.is_error]
    if bound is None or errors:
        raise MountError(errors)
    return bound.value


def find_missing_env(value: Any, environ: Mapping[str, str]) -> list[tuple[str, str]]:
    """(config field, variable) for every env(...) reference in `value` that `environ`
    lacks, sorted; the field is dotted (`auth.token`, `keys.0`)."""
    missing: set[tuple[str, str]] = set()

    def walk(item: Any, where: str) -> None:
        if isinstance(item, Env) or is_env_json(item):
            name = item.name if isinstance(item, Env) else item[ENV_MARKER]
            if name not in environ:
                missing.add((where or "(config)", name))
        elif isinstance(item, Mapping):
            for key, child in item.items():
                walk(child, f"{where}.{key}" if where else str(key))
        elif isinstance(item, list | tuple):
            for index, child in enumerate(item):
                walk(child, f"{where}.{index}" if where else str(index))

    walk(value, "")
    return sorted(missing)
