"""What the `eve` build hook hands to hatchling: the built package, the manifest, a .pth.

The hook passes the output of `build_extension()` to hatchling only through
`build_data`:

- `force_include`: `build/eve/<import>/` shipped as `<import>/` at the wheel root;
- `extra_metadata`: the manifest, as `<name>.dist-info/extra_metadata/eve-manifest.json`;
- `force_include_editable`: for `pip install -e .`, a `.pth` file that puts the
  output folder (`build/eve/`) on `sys.path` instead of a copy of the package, so
  each later `eve extension build` is what the author's venv imports.

Plain paths in, plain dicts out: this module imports nothing of the build pipeline.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from eve_build.capabilities import DIST_INFO_MANIFEST, MANIFEST_FILENAME, SOURCE_PACKAGE_DIR


@dataclass(frozen=True)
class WheelInclusions:
    """The `build_data` entries for one wheel build (source path -> wheel path)."""

    force_include: dict[str, str] = field(default_factory=dict)
    extra_metadata: dict[str, str] = field(default_factory=dict)
    force_include_editable: dict[str, str] = field(default_factory=dict)


def derive_path_file_name(import_name: str) -> str:
    """The editable wheel's `.pth` file; hatchling's own would be `_<import>.pth`."""
    return f"_{import_name}_eve.pth"


def write_path_file(output_dir: Path, import_name: str, directory: Path) -> Path:
    """Write the editable install's `.pth` (one line: the output folder) into `directory`."""
    path = directory / derive_path_file_name(import_name)
    path.write_text(f"{output_dir.resolve()}\n", encoding="utf-8")
    return path


def derive_wheel_inclusions(
    package_dir: Path, *, editable_path_file: Path | None = None
) -> WheelInclusions:
    """The wheel's share of a build (`build/eve/<import>/`): the package and the manifest
    copy, or the `.pth`.

    An editable wheel ships no copy of the package and no manifest copy: the
    `.pth` makes the output folder importable, and a manifest copy in the
    dist-info would go stale at the next `eve extension build`. hatchling still
    gets `force_include` for it, which also tells its file selection that the
    wheel's contents are given (no `packages` setting needed).
    """
    package = {str(package_dir): package_dir.name}
    if editable_path_file is not None:
        return WheelInclusions(
            force_include=package,
            force_include_editable={str(editable_path_file): editable_path_file.name},
        )
    manifest = package_dir / SOURCE_PACKAGE_DIR / MANIFEST_FILENAME
    return WheelInclusions(force_include=package,
                           extra_metadata={str(manifest): DIST_INFO_MANIFEST})
