"""Trust for a project's `.eve/extensions/`: approved by content, kept in `$EVE_HOME/trust.json`.

    {"formatVersion": 1,
     "projects": {"/abs/project/.eve/extensions": {"hash": "sha256:...", "files": [...]}}}

The hash covers the relative name and the bytes of every file in the folder
(`__pycache__` and `.pyc` files left out: they are never read, local extensions are
compiled from the checked source bytes by eve_build.local.source_loader), so an
edit, an added or a removed file makes the folder untrusted again. The file is
written atomically; a corrupt one is a diagnostic (and trusts nothing), never a
traceback.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from eve_build.diagnostics import Diagnostic, error, warning
from eve_build.errors import DiagnosticsError, EveBuildError
from eve_build.formats.writer import write_file
from eve_build.local.discovery import PROJECT_FOLDER, locate_project_folder
from eve_build.source.tree import DiskTree, SourceTree, join
from eve_build.userfile import read_user_text

TRUST_FILE = "trust.json"
TRUST_FORMAT_VERSION = 1
SKIPPED = frozenset({"__pycache__"})
MAX_DEPTH = 16  # a folder link that loops stops here
TrustState = Literal["trusted", "untrusted", "changed", "empty"]


@dataclass(frozen=True)
class TrustCheck:
    """Where a project's extension folder stands: the files, their hash, the verdict."""

    folder: Path
    state: TrustState
    digest: str
    files: tuple[str, ...]
    diagnostics: tuple[Diagnostic, ...] = field(default=())
    digests: Mapping[str, str] = field(default_factory=dict)  # file -> sha256 hex, as read

    @property
    def trusted(self) -> bool:
        return self.state == "trusted"


def derive_content_hash(tree: SourceTree) -> tuple[str, tuple[str, ...]]:
    """`sha256:...` over each file's relative name, length and bytes, and the names.

    A link is hashed by what it points to (its text when that cannot be read).
    """
    digest, files, _ = derive_file_digests(tree)
    return digest, files


def derive_file_digests(tree: SourceTree) -> tuple[str, tuple[str, ...], dict[str, str]]:
    """The content hash, the names, and each file's own sha256 of the bytes hashed: the
    loader compiles a project extension only from bytes with these digests."""
    files = tuple(sorted(_files(tree, ""))) if tree.is_dir("") else ()
    digest = hashlib.sha256()
    each: dict[str, str] = {}
    for relative in files:
        try:
            data = tree.read_bytes(relative)
            each[relative] = hashlib.sha256(data).hexdigest()
        except OSError:  # a FIFO, a device, an unreadable link: hashed, never loaded
            data = b"link-unreadable"
        digest.update(f"{relative}\0{len(data)}\0".encode())
        digest.update(data)
    return f"sha256:{digest.hexdigest()}", files, each


def _files(tree: SourceTree, directory: str, depth: int = 0) -> list[str]:
    found: list[str] = []
    for entry in tree.entries(directory):
        relative = join(directory, entry.name)
        if entry.kind == "dir":  # followed even when linked from elsewhere: it is code too
            if entry.name not in SKIPPED and depth < MAX_DEPTH:
                found.extend(_files(tree, relative, depth + 1))
        elif entry.kind == "file" and not entry.name.endswith(".pyc"):
            found.append(relative)
    return found


def read_trust(eve_home: Path) -> tuple[dict[str, Any], list[Diagnostic]]:
    """The approved folders by absolute path; a corrupt file gives none and a diagnostic."""
    path = eve_home / TRUST_FILE
    try:
        data = json.loads(read_user_text(path, what="trust file"))
    except FileNotFoundError:
        return {}, []
    except OSError as exc:
        return {}, [_corrupt(path, f"it cannot be read: {exc.strerror or exc}")]
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        return {}, [_corrupt(path, f"it cannot be read as JSON: {exc}")]
    projects = data.get("projects") if isinstance(data, dict) else None
    if not isinstance(projects, dict) or data.get("formatVersion") != TRUST_FORMAT_VERSION:
        return {}, [_corrupt(path, "it is not a trust file of format 1")]
    return {k: v for k, v in projects.items() if isinstance(v, dict)}, []


def write_trust(eve_home: Path, projects: dict[str, Any]) -> None:
    """Write the trust file atomically (raises EveBuildError when it cannot be written)."""
    data = {"formatVersion": TRUST_FORMAT_VERSION, "projects": dict(sorted(projects.items()))}
    path = eve_home / TRUST_FILE
    try:
        write_file(path, json.dumps(data, indent=2) + "\n")
    except OSError as exc:
        raise EveBuildError(f"cannot write `{path}`: {exc.strerror or exc}",
                            "check that EVE_HOME points to a folder you can write") from None


def check_trust(project_root: Path, eve_home: Path) -> TrustCheck:
    """Is the project's extension folder approved, as it is now?"""
    folder = locate_project_folder(project_root).resolve()
    digest, files, each = derive_file_digests(DiskTree(folder, folder))
    if not files:
        return TrustCheck(folder, "empty", digest, files)
    projects, problems = read_trust(eve_home)
    approved = projects.get(str(folder), {}).get("hash")
    if approved == digest:
        return TrustCheck(folder, "trusted", digest, files, tuple(problems), each)
    state: TrustState = "changed" if approved else "untrusted"
    said = "changed since approved" if approved else "never approved"
    notice = warning(
        "local/project-untrusted", str(PROJECT_FOLDER),
        f"untrusted: {said}; the project's local extensions are skipped",
        "review the files, then run `eve trust` in the project (`--yes` in scripts)")
    return TrustCheck(folder, state, digest, files, (*problems, notice))


def approve_trust(project_root: Path, eve_home: Path) -> TrustCheck:
    """Record the folder's current hash (raises DiagnosticsError on a corrupt trust file)."""
    check = check_trust(project_root, eve_home)
    projects = _writable(eve_home)
    projects[str(check.folder)] = {"hash": check.digest, "files": list(check.files)}
    write_trust(eve_home, projects)
    return TrustCheck(check.folder, "trusted", check.digest, check.files)


def revoke_trust(project_root: Path, eve_home: Path) -> bool:
    """Forget the approval; False when there was none."""
    folder = str(locate_project_folder(project_root).resolve())
    projects = _writable(eve_home)
    if projects.pop(folder, None) is None:
        return False
    write_trust(eve_home, projects)
    return True


def _writable(eve_home: Path) -> dict[str, Any]:
    projects, problems = read_trust(eve_home)
    if problems:
        raise DiagnosticsError("cannot update the trust file", problems)
    return projects


def _corrupt(path: Path, why: str) -> Diagnostic:
    return error("local/trust-file-invalid", str(path), f"the trust file is corrupt: {why}",
                 f"delete `{path}` (every approval is then asked again) or fix it")
