"""`eve extension pack`: the sdist and wheel of an extension, made by `python -m build`.

    result = pack_extension(Path("acme-crm"), outdir=Path("dist"), isolation=False)

The extension is built in-process first, so a broken one fails with the same
diagnostics as `eve extension build` before any build environment is made. Then the
`build` frontend runs as a subprocess (`sys.executable -m build`), which runs the
hatchling hook `eve` again inside the backend; the wheel it made is read back and
summarised.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import re
import shutil
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from eve_build.errors import DiagnosticsError, EveBuildError
from eve_build.extension.build import BuildResult, build_extension
from eve_build.formats.manifest import DIST_INFO_MANIFEST, Manifest, ManifestError, parse_manifest
from eve_build.install_hint import DISTRIBUTION, derive_install_hint
from eve_build.process import (
    Runner,
    derive_output_tail,
    find_decisive_line,
    find_missing_requirement,
    run_subprocess,
)
from eve_build.project.package_files import find_root_links_outside
from eve_build.project.roots import locate_extension_root

ISOLATED_HINT = (
    "an isolated build installs the pinned `eve-build` from an index: pass `--no-isolation` "
    "to use this environment's, or set `PIP_FIND_LINKS` to a folder with its wheel "
    "(docs/publishing.md)"
)

MISSING_HINT = (
    "an isolated build installs `{requirement}` from an index, and pip found no distribution "
    "of it there: check that the index is reachable, set `PIP_FIND_LINKS` to a folder with "
    "its wheel, or pass `--no-isolation` to use this environment's (docs/publishing.md)"
)
"""The hint of an isolated build whose index lacks a requirement other than eve-build."""

STAGING_PREFIX = ".eve-pack-"
"""`python -m build` writes into a hidden folder of the outdir; only a whole pack leaves it."""


@dataclass(frozen=True)
class WheelSummary:
    """What a wheel holds, read from the archive alone."""

    path: Path
    files: int
    """Every member, the dist-info included."""
    import_package: str
    package_files: int
    manifest: Manifest


@dataclass(frozen=True)
class PackResult:
    build: BuildResult
    wheel: WheelSummary
    sdist: Path | None


def derive_build_command(root: Path, outdir: Path, *, isolation: bool) -> list[str]:
    """`python -m build [--no-isolation] --outdir OUTDIR ROOT`, with this interpreter."""
    argv = [sys.executable, "-m", "build", "--outdir", str(outdir)]
    if not isolation:
        argv.append("--no-isolation")
    return [*argv, str(root)]


def derive_isolated_hint(output: str) -> str:
    """The hint of a failed isolated build: the requirement pip found no distribution of,
    when it is not eve-build; else where the pinned eve-build comes from (ISOLATED_HINT)."""
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.utils import canonicalize_name

    missing = find_missing_requirement(output)
    if missing is None:
        return ISOLATED_HINT
    try:
        name = Requirement(missing).name
    except InvalidRequirement:
        name = re.split(r"[\s<>=!~;\[(@]", missing, maxsplit=1)[0]
    if canonicalize_name(name) == DISTRIBUTION:
        return ISOLATED_HINT
    return MISSING_HINT.format(requirement=missing)


def read_wheel_summary(path: Path) -> WheelSummary:
    """Count a wheel's files and read the manifest copy in its dist-info.

    Raises:
        EveBuildError: the file is not a wheel of an eve extension.
    """
    try:
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
            manifest_name = next(
                (n for n in names if n.endswith(f".dist-info/extra_metadata/{DIST_INFO_MANIFEST}")),
                None,
            )
            text = archive.read(manifest_name).decode("utf-8") if manifest_name else None
    except (OSError, zipfile.BadZipFile) as exc:
        raise EveBuildError(
            f"`{path}` is not a readable wheel: {exc}", hint="run `eve extension pack` again"
        ) from exc
    if text is None:
        raise EveBuildError(
            f"`{path}` has no `{DIST_INFO_MANIFEST}` in its dist-info: it was not built by the "
            "`eve` build hook",
            hint="add `[tool.hatch.build.hooks.eve]` to pyproject.toml",
        )
    try:
        manifest = parse_manifest(text)
    except ManifestError as exc:
        raise EveBuildError(f"`{path}`: {exc.message}", hint=exc.hint) from exc
    top = manifest.package.import_name
    return WheelSummary(
        path=path,
        files=len(names),
        import_package=top,
        package_files=sum(1 for n in names if PurePosixPath(n).parts[0] == top),
        manifest=manifest,
    )


def _locate_artifacts(outdir: Path, build: BuildResult) -> tuple[Path, Path | None]:
    stem = build.project.import_name  # the wheel's name part is normalised the same way
    version = build.project.version
    wheels = sorted(outdir.glob(f"{stem}-{version}-*.whl"))
    if not wheels:
        raise EveBuildError(
            f"`python -m build` made no wheel `{stem}-{version}-*.whl` in `{outdir}`",
            hint="run `python -m build` by hand in the package to see why",
        )
    sdist = outdir / f"{stem}-{version}.tar.gz"
    return wheels[-1], sdist if sdist.is_file() else None


def pack_extension(
    root: Path,
    *,
    outdir: Path | None = None,
    isolation: bool = True,
    runner: Runner = run_subprocess,
) -> PackResult:
    """Build the extension, then its sdist and wheel into `outdir` (default `root/dist`).

    Raises:
        DiagnosticsError: the extension does not build (nothing is packed).
        EveBuildError: the `build` frontend is missing or failed.
    """
    root = locate_extension_root(root)  # the nearest `[tool.eve.extension]` project upward
    outside = find_root_links_outside(root)
    if not outside:  # what hatchling would pack, all at once rather than the hook's failure
        from eve_build.hatch.selection import find_unsafe_artifact_files

        outside = find_unsafe_artifact_files(root)
    if outside:
        raise DiagnosticsError("cannot pack extension", outside)
    build = build_extension(root, verify=True)
    if importlib.util.find_spec("build") is None:
        raise EveBuildError(
            "the `build` frontend is not installed in this environment",
            hint=f"install it: `{derive_install_hint('build')}`",
        )
    target = (outdir if outdir is not None else root / "dist").resolve()
    target.mkdir(parents=True, exist_ok=True)
    for leftover in target.glob(f"{STAGING_PREFIX}*"):  # from a pack that was killed
        shutil.rmtree(leftover, ignore_errors=True)
    staging = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=target))
    try:
        return _pack_into(root, build, staging, target, isolation=isolation, runner=runner)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _pack_into(root: Path, build: BuildResult, staging: Path, target: Path, *,
               isolation: bool, runner: Runner) -> PackResult:
    """Build into `staging`; only a whole, readable pair is moved into `target`."""
    argv = derive_build_command(root, staging, isolation=isolation)
    code, output = runner(argv, root)
    if code != 0:
        decisive = find_decisive_line(output)
        shown = f": {decisive}" if decisive else f"; its last output:\n{derive_output_tail(output)}"
        hint = (
            derive_isolated_hint(output)
            if isolation
            else "run `python -m build --no-isolation` in the package to see its whole output"
        )
        raise EveBuildError(
            f"`python -m build` failed (exit code {code}){shown}", hint=hint
        )
    wheel, sdist = _locate_artifacts(staging, build)
    summary = read_wheel_summary(wheel)  # a wheel that cannot be read never reaches dist/
    if sdist is not None:
        sdist = sdist.replace(target / sdist.name)
    placed = wheel.replace(target / wheel.name)
    return PackResult(build=build, wheel=dataclasses.replace(summary, path=placed), sdist=sdist)
