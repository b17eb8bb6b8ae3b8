"""What `eve add` was given, and its manifest, read before anything is changed.

- a wheel file (`dist/acme_crm-0.3.0-py3-none-any.whl`): the manifest copy in its
  dist-info, read from the archive;
- a folder: an extension project (`[tool.eve.extension]`), built once here (its
  output is what an editable install puts on the path), installed editable;
- anything else is a requirement (`acme-crm`, `acme-crm==0.3.0`): installed without its
  dependencies into a scratch folder first, so its manifest is read from the installed
  metadata (`.dist-info/extra_metadata/eve-manifest.json`) without importing it.
Something that is not an eve extension is an error before the project changes.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eve_build.add.installer import ProjectEnvironment, Runner, derive_install_command
from eve_build.diagnostics import Diagnostic, error
from eve_build.errors import DiagnosticsError, EveBuildError
from eve_build.formats.manifest import DIST_INFO_MANIFEST, Manifest, ManifestError, read_manifest
from eve_build.process import find_decisive_line
from eve_build.project.pyproject import PYPROJECT
from eve_build.project.roots import has_extension_table

TITLE = "cannot add the extension"


@dataclass(frozen=True)
class Candidate:
    """An extension ready to install: what goes into pyproject and what pip gets."""

    shown: str  # as the user named it
    manifest: Manifest
    requirement: str  # the `[project].dependencies` entry
    install: tuple[str, ...]  # pip-style arguments
    uv_source: dict[str, Any] | None = field(default=None)  # `[tool.uv.sources]` entry


def derive_candidate(target: str, app_root: Path, environment: ProjectEnvironment,
                     runner: Runner) -> Candidate:
    """Read the target's manifest; raises DiagnosticsError (nothing changed)."""
    path = Path(target)
    if target.endswith(".whl"):
        return _wheel(target, path)
    if path.is_dir():
        return _folder(target, path.resolve(), app_root, environment)
    if "/" in target or target.startswith("."):
        raise _fail("add/target-not-found", target, f"`{target}` does not exist",
                    "pass an extension project's folder, a wheel file or a package name")
    return _package(target, app_root, environment, runner)


def _wheel(target: str, path: Path) -> Candidate:
    from eve_build.hatch.pack import read_wheel_summary

    if not path.is_file():
        raise _fail("add/target-not-found", target, f"`{target}` does not exist",
                    "pass the path of a wheel built with `eve extension pack`")
    try:
        summary = read_wheel_summary(path)
    except EveBuildError as exc:
        raise _not_extension(target, exc.message) from None
    resolved = path.resolve()
    return Candidate(target, summary.manifest,
                     f"{summary.manifest.package.name} @ {resolved.as_uri()}", (str(resolved),))


def _folder(target: str, root: Path, app_root: Path, environment: ProjectEnvironment
            ) -> Candidate:
    from eve_build.extension.build import build_extension

    if not has_extension_table(root / PYPROJECT):
        raise _not_extension(target, f"`{target}` has no {PYPROJECT} with "
                                     "`[tool.eve.extension]`")
    try:
        manifest = build_extension(root).manifest
    except DiagnosticsError as exc:
        raise DiagnosticsError(TITLE, [*exc.diagnostics, error(
            "add/not-an-extension", target, f"the extension in `{target}` does not build",
            f"fix it, then run `eve add {target}` again")]) from None
    name = manifest.package.name
    if environment.uv is not None:
        relative = Path(os.path.relpath(root, app_root)).as_posix()
        return Candidate(target, manifest, name, ("--no-build-isolation", "-e", str(root)),
                         {"path": relative, "editable": True})
    return Candidate(target, manifest, f"{name} @ {root.as_uri()}",
                     ("--no-build-isolation", "-e", str(root)))


def _package(target: str, app_root: Path, environment: ProjectEnvironment,
             runner: Runner) -> Candidate:
    with tempfile.TemporaryDirectory(prefix="eve-add-") as scratch:
        done = runner(derive_install_command(
            environment, ["--no-deps", "--target", scratch, target]), app_root)
        if done.returncode != 0:
            raise _install_failed(target, done.stdout)
        found = sorted(Path(scratch).glob(f"*.dist-info/extra_metadata/{DIST_INFO_MANIFEST}"))
        if not found:
            raise _not_extension(target, f"`{target}` installs no `{DIST_INFO_MANIFEST}` in its "
                                         "dist-info")
        try:
            manifest = read_manifest(found[0])
        except ManifestError as exc:
            raise _not_extension(target, exc.message) from None
    return Candidate(target, manifest, target, (target,))


def _not_extension(target: str, reason: str) -> DiagnosticsError:
    return _fail("add/not-an-extension", target, f"`{target}` is not an eve extension: {reason}",
                 "add an eve extension package (built with the `eve` hatchling build hook); "
                 "nothing was changed")


def describe_install_failure(output: str) -> str:
    """Why an install failed, in one line: the installer's or the build backend's own
    words (`process.find_decisive_line`: a resolver verdict, hatchling's exception, an
    `ERROR` line), else its last three lines."""
    decisive = find_decisive_line(output)
    if decisive is not None:
        return decisive
    return "; ".join(line.strip() for line in output.strip().splitlines()[-3:]) or "no output"


def _install_failed(target: str, output: str) -> DiagnosticsError:
    return _fail("add/install-failed", target,
                 f"installing `{target}` failed: {describe_install_failure(output)}",
                 "check the name or path and your network, then try again; nothing was changed")


def _fail(code: str, file: str, message: str, hint: str) -> DiagnosticsError:
    found: list[Diagnostic] = [error(code, file, message, hint)]
    return DiagnosticsError(TITLE, found)
