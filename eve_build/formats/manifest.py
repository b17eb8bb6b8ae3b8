"""The compatibility manifest `_manifest.json`: a strict, versioned contract.

Python attributes are snake_case; the JSON on disk uses eve's camelCase. A
consumer parses it before importing any extension code.
"""

from __future__ import annotations

import json
from importlib.machinery import PathFinder
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from eve_build.capabilities import DIST_INFO_MANIFEST as DIST_INFO_MANIFEST
from eve_build.capabilities import MANIFEST_FILENAME as MANIFEST_FILENAME
from eve_build.capabilities import MANIFEST_KIND, SUPPORTED_FORMAT_VERSIONS
from eve_build.capabilities import SOURCE_PACKAGE_DIR as SOURCE_PACKAGE_DIR
from eve_build.formats.json_text import derive_json_text
from eve_build.userfile import read_user_text


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)


class PackageInfo(_Strict):
    name: str
    version: str
    import_name: str = Field(alias="import")


class BuildInfo(_Strict):
    external_dependencies: list[str] = Field(alias="externalDependencies")


class Manifest(_Strict):
    kind: str
    format_version: int = Field(alias="formatVersion")
    built_with_eve: str = Field(alias="builtWithEve")
    requires: dict[str, Any]
    build: BuildInfo
    package: PackageInfo
    config: dict[str, Any] | None
    contributions: dict[str, Any]
    files: dict[str, str]


class ManifestError(ValueError):
    """The manifest is missing, malformed, of another kind or of an unknown format."""

    def __init__(self, message: str, hint: str) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


_REBUILD = "rebuild the extension (`eve extension build`) or reinstall it"


def parse_manifest(text: str) -> Manifest:
    """Parse and check the manifest text; raises ManifestError with a hint."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ManifestError(f"the manifest is not valid JSON ({exc})", _REBUILD) from exc
    except RecursionError:
        raise ManifestError("the manifest is nested too deeply to read", _REBUILD) from None
    if not isinstance(data, dict):
        raise ManifestError("the manifest is not a JSON object", _REBUILD)
    if data.get("kind") != MANIFEST_KIND:
        raise ManifestError(
            f"the manifest's kind is {data.get('kind')!r}, not {MANIFEST_KIND!r}: this is not "
            "an eve extension", "mount an eve extension package, or rebuild this one",
        )
    version = data.get("formatVersion")
    if type(version) is not int or version not in SUPPORTED_FORMAT_VERSIONS:
        supported = ", ".join(str(v) for v in SUPPORTED_FORMAT_VERSIONS)
        newer = isinstance(version, int) and version > max(SUPPORTED_FORMAT_VERSIONS)
        raise ManifestError(
            f"the manifest's formatVersion {version!r} is not one this eve-build reads "
            f"(supported: {supported})",
            "upgrade eve-build, or install an extension release built for this one" if newer
            else _REBUILD,
        )
    try:
        return Manifest.model_validate(data)
    except ValidationError as exc:
        fields = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or '(root)'}: {e['msg']}" for e in exc.errors()
        )
        raise ManifestError(f"the manifest is malformed: {fields}", _REBUILD) from exc


def read_manifest(path: Path) -> Manifest:
    try:
        text = read_user_text(path, what="manifest")
    except FileNotFoundError as exc:
        raise ManifestError(f"there is no compatibility manifest at `{path}`", _REBUILD) from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise ManifestError(f"the manifest at `{path}` cannot be read: {exc}", _REBUILD) from exc
    return parse_manifest(text)


def derive_manifest_path(package_dir: Path) -> Path:
    """Where the manifest of the import package at `package_dir` is:
    `<package_dir>/extension/_manifest.json`."""
    return package_dir / SOURCE_PACKAGE_DIR / MANIFEST_FILENAME


def try_locate_package(module: str, paths: list[str]) -> Path | None:
    """The folder of the top-level package `module` on `paths` (never imported): where a
    consumer and the host find a built package, to read its manifest."""
    try:
        spec = PathFinder.find_spec(module, paths)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    locations = list(spec.submodule_search_locations)
    return Path(locations[0]).resolve() if locations else None


def serialize_manifest(manifest: Manifest) -> str:
    """Stable text: 2-space indent, keys in model order, trailing newline (exactly
    `json.dumps(..., indent=2, ensure_ascii=False)`, written by a faster route)."""
    return derive_json_text(manifest.model_dump(by_alias=True)) + "\n"
