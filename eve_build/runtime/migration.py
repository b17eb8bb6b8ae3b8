"""Move state from package-prefixed keys (`acme-crm.requests`) to per-mount keys.

A pure function over the snapshot and the compiled mounts and states
(DESIGN.md section 5). For each old key, the mounts of that package that define
that state name decide:

- exactly one: the value moves to `<mount path>:<name>` (a value already under
  the new key is kept, and the old one dropped with a warning);
- none: the key is dropped with a warning naming it;
- two or more: the whole migration is rejected, naming every such key, and the
  caller changes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from eve_build.diagnostics import Diagnostic, error, warning
from eve_build.errors import DiagnosticsError
from eve_build.formats.compiled import CompiledMount, CompiledState
from eve_build.runtime.snapshot import SNAPSHOT_FORMAT_VERSION, parse_snapshot


def migrate_snapshot(
    snapshot: Mapping[str, Any], mounts: Sequence[CompiledMount],
    states: Sequence[CompiledState], *, file: str = "",
) -> tuple[dict[str, Any], list[Diagnostic]]:
    """The migrated snapshot and its warnings; raises DiagnosticsError when ambiguous."""
    from packaging.utils import canonicalize_name  # only a resumed session migrates

    checked = parse_snapshot(dict(snapshot) if isinstance(snapshot, Mapping) else snapshot,
                             file=file)
    packages = {str(canonicalize_name(m.package)) for m in mounts}
    packages |= {str(canonicalize_name(s.package)) for s in states if s.package}
    agent_names = {s.name for s in states if not s.mount_path}
    kept: dict[str, Any] = {}
    legacy: list[tuple[str, str, str]] = []  # key, package, name
    for key, value in checked["state"].items():
        split = try_split_legacy_key(key, packages, agent_names)
        if split is None:
            kept[key] = value
        else:
            legacy.append((key, *split))
    found: list[Diagnostic] = []
    for key, package, name in legacy:
        targets = sorted({s.key for s in states
                          if s.mount_path and canonicalize_name(s.package) == package
                          and s.name == name})
        if len(targets) > 1:
            found.append(error(
                "state/key-ambiguous", file,
                f"`{key}` cannot be moved: {len(targets)} mounts of `{package}` define the "
                f"state `{name}` ({', '.join(f'`{t}`' for t in targets)})",
                "move the value by hand to the key of the mount it belongs to, then "
                "remove the old key",
            ))
        elif not targets:
            found.append(warning(
                "state/key-dropped", file,
                f"`{key}` was dropped: no mount of `{package}` defines the state `{name}`",
            ))
        elif targets[0] in kept:
            found.append(warning(
                "state/key-dropped", file,
                f"`{key}` was dropped: `{targets[0]}` already holds this state",
            ))
        else:
            kept[targets[0]] = checked["state"][key]
    errors = [d for d in found if d.is_error]
    if errors:
        raise DiagnosticsError("cannot migrate the session snapshot", errors)
    migrated = {**checked, "formatVersion": SNAPSHOT_FORMAT_VERSION, "state": kept}
    return migrated, found


def try_split_legacy_key(
    key: str, packages: set[str], agent_names: set[str]
) -> tuple[str, str] | None:
    """(`acme-crm`, `requests`) for `acme-crm.requests`; None for a current key.

    Current keys hold a `:` (`extensions/crm:requests`) or name the agent's own
    state. The longest prefix that is a known package wins (package names may hold
    dots); an unknown package is what precedes the first dot.
    """
    if ":" in key or key in agent_names or "." not in key:
        return None
    from packaging.utils import canonicalize_name

    cuts = [i for i, char in enumerate(key) if char == "."]
    known = [i for i in cuts if canonicalize_name(key[:i]) in packages]
    cut = max(known) if known else cuts[0]
    return str(canonicalize_name(key[:cut])), key[cut + 1:]
