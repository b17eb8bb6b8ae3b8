"""Is this output current for these inputs? The one rule, and the record it reads.

    inputs = read_inputs(project_root, "extension")
    files[RECORD_FILE] = serialize_record(derive_record(inputs, ...))  # the build's output
    reason = explain_staleness(output_dir, project_root)   # None: current

An extension's build reads `pyproject.toml` and every file under its source folder
(skill assets, `extension/lib/` and folders linked into the package included). Its
output is current when:

- the freshness record written with the output (`<output>/.eve-freshness.json`) was
  written by this eve-build version;
- every input has the content hash (sha256) the record holds, and the set of inputs is
  the same (a file added or removed is a change), with the same links (a link's text,
  a hard-linked file's link count);
- every output file the build wrote still has the content hash the record holds.

Nothing else decides it: a modification time is never the answer (touching a file, or
a checkout that resets every mtime, changes nothing). The record is rewritten by every
build that finds it different, even when the output files come out byte for byte the
same, so a build after any edit settles in one step. `eve extension build` (through its
stamp), `eve build`, `eve build --plan`, `eve dev`, `eve add` and the host's load-time
upgrade check all ask here. An installed package (no source beside it) is identified
by the hash of its manifest (`derive_manifest_hash`), which the compiled agent records.

The walk gives up (no inputs: stale, the full build reports why with discovery's own
diagnostic) on what it cannot vouch for: a symlink leaving the package, a file that is
not regular (a FIFO would hang a plain read), one that cannot be read. A folder reached
again through a link (a loop, or a second link to the same folder) is read once.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from eve_build._version import __version__
from eve_build.capabilities import MANIFEST_FILENAME, SOURCE_PACKAGE_DIR
from eve_build.userfile import read_user_bytes

RECORD_FILE = ".eve-freshness.json"
"""Written by every build at the top of its output folder (never shipped in a wheel)."""
FORMAT = "eve-freshness-1"
PYPROJECT = "pyproject.toml"
HASH_PREFIX = "sha256:"
SKIPPED_DIRS = frozenset({"__pycache__"})
MAX_DEPTH = 100
"""Deeper than discovery walks (`eve_build.source.walk.MAX_DEPTH`): the build decides."""
NO_OUTPUT = "no complete output (its manifest is missing or unreadable)"


@dataclass(frozen=True)
class Inputs:
    """What one build of an extension reads, as content hashes."""

    source: str  # the source folder, relative to the project root (POSIX)
    hashes: dict[str, str]  # path relative to the project root -> `sha256:<hex>`
    notes: tuple[str, ...]  # link texts and link counts, in walk order
    data: dict[str, bytes] = field(default_factory=dict, repr=False, compare=False)
    """The bytes read, by path under the source folder (a full build uses them)."""

    @property
    def digest(self) -> str:
        """`sha256:` over the eve-build version and every input: the same inputs give the
        same output (`eve build --plan`'s `inputHash`, the build stamp's fingerprint)."""
        hasher = hashlib.sha256(f"{FORMAT}\0eve-build {__version__}\0{self.source}\0".encode())
        for relative, digest in sorted(self.hashes.items()):
            hasher.update(f"{relative}\0{digest}\0".encode())
        for note in self.notes:
            hasher.update(f"note\0{note}\0".encode())
        return HASH_PREFIX + hasher.hexdigest()


@dataclass(frozen=True)
class Record:
    """The freshness record: what the build that wrote this output read and wrote."""

    built_with_eve: str
    package: str  # the import name of the package in the output folder
    project: str  # the project root, relative to the output folder (POSIX)
    inputs: Inputs
    outputs: dict[str, str]  # path under the output folder -> `sha256:<hex>`


class _GiveUp(Exception):
    """The walk cannot vouch for this tree: the full build decides."""


def read_inputs(project_root: Path, source: str) -> Inputs | None:
    """The inputs of the extension at `project_root` whose sources are under `source`;
    None when the walk cannot vouch for them (see the module docstring)."""
    try:
        pyproject = read_user_bytes(project_root / PYPROJECT, what="pyproject").data
    except OSError:
        return None
    files: dict[str, bytes] = {}
    notes: list[str] = []
    package = os.path.realpath(project_root)
    try:
        _read_folder(os.path.realpath(project_root / source), "", package, set(), files,
                     notes)
    except (_GiveUp, OSError):
        return None
    prefix = source.strip("/")
    hashes = {PYPROJECT: _hash(pyproject)}
    hashes.update((f"{prefix}/{relative}", _hash(data)) for relative, data in files.items())
    return Inputs(prefix, hashes, tuple(notes), dict(sorted(files.items())))


def derive_record(inputs: Inputs, output_dir: Path, project_root: Path, package: str,
                  outputs: Mapping[str, str]) -> Record:
    """The record of a build of `inputs` that wrote `outputs` (path under the output
    folder -> sha256 hex, or `sha256:<hex>`) for the package `package`."""
    project = Path(os.path.relpath(project_root, output_dir)).as_posix()
    return Record(__version__, package, project, inputs,
                  {relative: _prefixed(digest) for relative, digest in sorted(outputs.items())
                   if relative != RECORD_FILE})


def serialize_record(record: Record) -> bytes:
    """The record's bytes: the same record always gives the same bytes (no timestamps),
    so a build whose record did not change writes nothing."""
    data = {
        "format": FORMAT, "builtWithEve": record.built_with_eve, "package": record.package,
        "project": record.project, "source": record.inputs.source,
        "inputs": dict(sorted(record.inputs.hashes.items())),
        "notes": list(record.inputs.notes), "outputs": dict(sorted(record.outputs.items())),
    }
    return (json.dumps(data, indent=1) + "\n").encode()


def read_record(output_dir: Path) -> Record | None:
    """The record beside the output, or None (missing, unreadable, another format)."""
    try:
        data = json.loads(read_user_bytes(output_dir / RECORD_FILE, what="record").data)
        if data.get("format") != FORMAT:
            return None
        inputs = Inputs(str(data["source"]),
                        {str(k): str(v) for k, v in data["inputs"].items()},
                        tuple(str(n) for n in data["notes"]))
        return Record(str(data["builtWithEve"]), str(data["package"]), str(data["project"]),
                      inputs, {str(k): str(v) for k, v in data["outputs"].items()})
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None


def explain_staleness(output_dir: Path, project_root: Path | None = None,
                      package: str | None = None) -> str | None:
    """None when the output in `output_dir` is current for its inputs, else why not.

    `project_root`: the extension project the output belongs to (None: the one the record
    names, as the host finds it from an output on `sys.path`); `package`: the import
    name the output must hold."""
    record = read_record(output_dir)
    if record is None:
        if package is None or not (output_dir / package / SOURCE_PACKAGE_DIR
                                   / MANIFEST_FILENAME).is_file():
            return NO_OUTPUT
        return "the output has no freshness record (built by an older eve-build)"
    if record.built_with_eve != __version__:
        return f"built with eve-build {record.built_with_eve}, this is {__version__}"
    if package is not None and record.package != package:
        return f"the output holds `{record.package}`, not `{package}`"
    root = project_root if project_root is not None else output_dir / record.project
    inputs = read_inputs(root, record.inputs.source)
    if inputs is None:
        return (f"a file of `{record.inputs.source}/` or `{PYPROJECT}` cannot be read, or a "
                "link leaves the package")
    reason = _compare_inputs(record.inputs, inputs)
    if reason is not None:
        return reason
    for relative, digest in record.outputs.items():
        found = _hash_file(output_dir / relative)
        if found is None:
            return f"the output lacks `{relative}`"
        if found != digest:
            return f"the output's `{relative}` differs from what its build wrote (edited by hand?)"
    return None


def explain_package_staleness(package_dir: Path) -> str | None:
    """For the host, which finds a built package on `sys.path` and has no project: why
    the source-backed package at `package_dir` is not current, or None when it is or
    cannot be checked here (no record beside it, as for a package pip installed, or no
    `pyproject.toml` where the record says its project is, as for a copied output)."""
    output_dir = package_dir.parent
    record = read_record(output_dir)
    if record is None or record.package != package_dir.name:
        return None
    root = output_dir / record.project
    if not (root / PYPROJECT).is_file():
        return None
    return explain_staleness(output_dir, root, package_dir.name)


def derive_manifest_hash(package_dir: Path) -> str:
    """`sha256:<hex>` of a built package's `_manifest.json` bytes ("" when unreadable): what
    the compiled agent records of each mounted package, and the host compares."""
    path = package_dir / SOURCE_PACKAGE_DIR / MANIFEST_FILENAME
    try:
        return _hash(read_user_bytes(path, what="manifest").data)
    except OSError:
        return ""


def _compare_inputs(recorded: Inputs, current: Inputs) -> str | None:
    if recorded.source != current.source:
        return f"the source folder changed (`{recorded.source}/` -> `{current.source}/`)"
    for relative in sorted(recorded.hashes.keys() | current.hashes.keys()):
        if relative not in current.hashes:
            return f"`{relative}` was removed"
        if relative not in recorded.hashes:
            return f"`{relative}` was added"
        if recorded.hashes[relative] != current.hashes[relative]:
            return f"`{relative}` changed"
    if recorded.notes != current.notes:
        return f"a link under `{current.source}/` changed"
    return None


def _hash(data: bytes) -> str:
    return HASH_PREFIX + hashlib.sha256(data).hexdigest()


def _prefixed(digest: str) -> str:
    return digest if digest.startswith(HASH_PREFIX) else HASH_PREFIX + digest


def _hash_file(path: Path) -> str | None:
    try:
        return _hash(read_user_bytes(path, what="output file").data)
    except OSError:
        return None


def _read_folder(folder: str, prefix: str, package: str, seen: set[str],
                 files: dict[str, bytes], notes: list[str]) -> None:
    """Read `folder` (a real path, shown as `prefix`) once, however often it is reached."""
    if folder in seen:
        return
    if prefix.count("/") > MAX_DEPTH:
        raise _GiveUp
    seen.add(folder)
    with os.scandir(folder) as listing:
        entries = sorted(listing, key=lambda entry: entry.name)
    for entry in entries:
        relative = f"{prefix}{entry.name}"
        if entry.is_symlink():
            real = os.path.realpath(entry.path)
            if os.path.commonpath([package, real]) != package:
                raise _GiveUp  # discovery reports it (discover/path-outside-package)
            notes.append(f"link {relative} -> {Path(entry.path).readlink()}")
            if Path(real).is_dir():
                _read_folder(real, f"{relative}/", package, seen, files, notes)
                continue
        elif entry.is_dir(follow_symlinks=False):
            if entry.name not in SKIPPED_DIRS:
                _read_folder(f"{folder}/{entry.name}", f"{relative}/", package, seen,
                             files, notes)
            continue
        if entry.name.endswith(".pyc"):
            continue
        files[relative] = _read_regular(entry.path, relative, notes)


def _read_regular(path: str, relative: str, notes: list[str]) -> bytes:
    """The bytes of a regular file, opened without blocking (a FIFO is never waited on)."""
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            raise _GiveUp
        if info.st_nlink > 1:
            notes.append(f"links {relative} {info.st_nlink}")
        with os.fdopen(descriptor, "rb", closefd=False) as stream:
            return stream.read()
    finally:
        os.close(descriptor)
