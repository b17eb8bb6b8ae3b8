"""The session snapshot: durable state and remembered approvals, as JSON.

    {"formatVersion": 1,
     "state": {"extensions/crm:requests": 3},
     "approvals": {"crm__admin-reset": true}}

State keys are `<mount path>:<name>` (the agent's own state: just `<name>`).
Snapshots written before formatVersion 1 may hold package-prefixed keys
(`acme-crm.requests`); `eve_build.runtime.migration` moves those.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from eve_build.diagnostics import error
from eve_build.errors import DiagnosticsError
from eve_build.formats.writer import write_file
from eve_build.userfile import describe_special, read_user_text

SNAPSHOT_FORMAT_VERSION = 1


def parse_snapshot(data: Any, *, file: str = "") -> dict[str, Any]:
    """A checked copy of a snapshot: `state` and `approvals` objects with string keys."""
    problem = _find_problem(data)
    if problem:
        raise DiagnosticsError("cannot read the session snapshot", [error(
            "state/snapshot-invalid", file, problem,
            'a snapshot is a JSON object like {"formatVersion": 1, "state": {...}}',
        )])
    return {**data, "state": dict(data.get("state", {})),
            "approvals": dict(data.get("approvals", {}))}


def _find_problem(data: Any) -> str:
    if not isinstance(data, dict):
        return "the snapshot is not a JSON object"
    version = data.get("formatVersion", 0)
    if not isinstance(version, int) or version > SNAPSHOT_FORMAT_VERSION:
        return (f"the snapshot has formatVersion {version!r}; this eve-build reads versions "
                f"up to {SNAPSHOT_FORMAT_VERSION}")
    for key in ("state", "approvals"):
        if not isinstance(data.get(key, {}), dict):
            return f"`{key}` is not a JSON object"
    return ""


def read_snapshot(path: Path) -> dict[str, Any]:
    """Read and check a snapshot file (raises DiagnosticsError naming it)."""
    try:
        data = json.loads(read_user_text(path, what="snapshot"))
    except OSError as exc:
        raise DiagnosticsError("cannot read the session snapshot", [error(
            "state/snapshot-invalid", str(path), f"cannot read the file: {exc.strerror}",
            "pass the path of a snapshot written by the host")]) from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DiagnosticsError("cannot read the session snapshot", [error(
            "state/snapshot-invalid", str(path), f"the file is not valid JSON: {exc}",
            "pass the path of a snapshot written by the host")]) from None
    except RecursionError:
        raise DiagnosticsError("cannot read the session snapshot", [error(
            "state/snapshot-invalid", str(path), "the file is nested too deeply to read",
            "pass the path of a snapshot written by the host")]) from None
    except ValueError as exc:  # a path the OS cannot take (a NUL byte)
        raise DiagnosticsError("cannot read the session snapshot", [error(
            "state/snapshot-invalid", repr(str(path)), f"cannot read the file: {exc}",
            "pass the path of a snapshot written by the host")]) from None
    return parse_snapshot(data, file=str(path))


def serialize_snapshot(snapshot: dict[str, Any]) -> str:
    """Stable JSON: 2-space indent, state keys sorted, a trailing newline."""
    ordered = {"formatVersion": snapshot.get("formatVersion", SNAPSHOT_FORMAT_VERSION),
               **{k: v for k, v in snapshot.items() if k != "formatVersion"}}
    for key in ("state", "approvals"):
        if isinstance(ordered.get(key), dict):
            ordered[key] = dict(sorted(ordered[key].items()))
    return json.dumps(ordered, indent=2, ensure_ascii=False) + "\n"


def write_snapshot(path: Path, snapshot: dict[str, Any]) -> None:
    """Write atomically: a temporary sibling, then a rename over the target (raises
    DiagnosticsError when the target is a folder or cannot be written)."""
    text = serialize_snapshot(snapshot)
    problem = ("it is a folder" if path.is_dir() else
               "its folder does not exist" if not path.parent.is_dir() else "")
    if problem:
        raise _unwritable(path, problem)
    target = _locate_regular_target(path)
    try:
        write_file(target, text)
    except OSError as exc:
        raise _unwritable(path, exc.strerror or type(exc).__name__) from None


def _locate_regular_target(path: Path) -> Path:
    """Where to write: `path`, or the regular file a link at `path` names (the link is
    kept). An existing FIFO, device or socket (`-o /dev/full`) is never replaced: the
    rename would put a regular file where a special one was (as root, a system one)."""
    try:
        info = path.stat()  # links followed
    except FileNotFoundError:
        if path.is_symlink():
            raise _unwritable(path, "it is a link to nothing") from None
        return path
    except OSError as exc:
        raise _unwritable(path, exc.strerror or type(exc).__name__) from None
    kind = describe_special(info.st_mode)
    if kind is not None:
        raise _unwritable(path, f"it is {kind}, not a regular file; eve-build replaces only "
                          "regular files")
    return path.resolve() if path.is_symlink() else path


def _unwritable(path: Path, problem: str) -> DiagnosticsError:
    return DiagnosticsError("cannot write the session snapshot", [error(
        "state/snapshot-unwritable", str(path), f"cannot write `{path}`: {problem}",
        "pass `-o` a file path in an existing, writable folder")])
