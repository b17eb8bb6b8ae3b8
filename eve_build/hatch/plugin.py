"""The hatchling build hook `eve`: `python -m build` runs the eve build and ships it.

Enabled in an extension's pyproject.toml by

    [tool.hatch.build.hooks.eve]
    require-runtime-dependencies = true   # the build imports the extension's code

For the wheel target the hook builds the extension in-process (the same
`build_extension()` as `eve extension build`, `eve_build.hatch.build_data`) and hands
hatchling the generated import package and the manifest (`eve_build.hatch.inclusions`).
When nothing the build depends on changed since the last build and its output is
intact, the build stamp skips the pipeline without importing it (`eve_build.engine.stamp`).
For the sdist it does nothing: the sdist carries the sources, and the wheel built
from it runs the hook again. A failed extension build fails the wheel build with the same
diagnostics the CLI prints.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.config import BuilderConfig
from hatchling.builders.hooks.plugin.interface import BuildHookInterface

from eve_build.hatch.options import PLUGIN_NAME as _PLUGIN_NAME
from eve_build.hatch.options import parse_hook_options

WHEEL_TARGET = "wheel"
SDIST_TARGET = "sdist"
EDITABLE_VERSION = "editable"


class EveBuildHook(BuildHookInterface[BuilderConfig]):
    """Runs `build_extension()` before hatchling writes a wheel."""

    PLUGIN_NAME = _PLUGIN_NAME

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._scratch: Path | None = None

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        """Build the extension and add its output to `build_data` (wheel target only).

        Raises:
            HookOptionError: the hook's option table is wrong.
            HookBuildError: the extension does not build; the text lists every diagnostic.
        """
        options = parse_hook_options(self.config)
        if self.target_name == SDIST_TARGET:
            self._refuse_links_outside()
            self._refuse_unsafe_inclusions()
            self._warn_if_output_ships()
        if self.target_name != WHEEL_TARGET:
            return
        self._refuse_unsafe_inclusions()
        # Imported here: hatchling loads every installed hook plugin for every build
        # (and for `get_requires_for_build_wheel`), and only an eve wheel needs these.
        from eve_build.hatch import build_data as data
        from eve_build.hatch.inclusions import derive_wheel_inclusions, write_path_file

        result = data.run_extension_build(Path(self.root), options)
        for warning in result.warnings:
            self.app.display_warning(warning.render())
        import_name = str(result.project.import_name)
        path_file = None
        if version == EDITABLE_VERSION:
            self._scratch = Path(tempfile.mkdtemp(prefix="eve-editable-"))
            path_file = write_path_file(result.output_dir, import_name, self._scratch)
        inclusions = derive_wheel_inclusions(result.package_dir, editable_path_file=path_file)
        build_data["force_include"].update(inclusions.force_include)
        build_data["extra_metadata"].update(inclusions.extra_metadata)
        build_data["force_include_editable"].update(inclusions.force_include_editable)
        self.app.display_info(
            f"eve: built `{import_name}` ({len(result.files)} "
            f"file{'' if len(result.files) == 1 else 's'}) into "
            f"`{result.project.output}`"
        )

    def _refuse_links_outside(self) -> None:
        """Package-root files linking outside the package would not ship as themselves."""
        from eve_build.hatch.build_data import HookBuildError
        from eve_build.project.package_files import find_root_links_outside

        outside = find_root_links_outside(Path(self.root))
        if outside:
            raise HookBuildError("\n".join(d.render() for d in outside))

    def _refuse_unsafe_inclusions(self) -> None:
        """What hatchling would pack besides the hook's own output: the project's files
        only (`eve_build.hatch.shipped`)."""
        from eve_build.hatch.build_data import HookBuildError
        from eve_build.hatch.selection import list_shipped_files
        from eve_build.hatch.shipped import find_unsafe_inclusions

        files = [(f.path, f.distribution_path)
                 for f in list_shipped_files(self.build_config.builder)]
        unsafe = find_unsafe_inclusions(Path(self.root), files)
        if unsafe:
            raise HookBuildError("\n".join(d.render() for d in unsafe))

    def _warn_if_output_ships(self) -> None:
        """The sdist should carry sources only; say so when a stale output would ship."""
        from eve_build.project.pyproject import parse_extension_project, read_pyproject

        root = Path(self.root)
        data, _ = read_pyproject(root)
        project, _ = parse_extension_project(root, data) if data is not None else (None, [])
        if project is None or not project.output_dir.is_dir():
            return  # a broken pyproject fails the wheel build, with its diagnostics
        output = Path(project.output).as_posix()
        if self.build_config.include_path(f"{output}/__init__.py"):
            self.app.display_warning(
                f"eve: the sdist includes the generated `{output}/`; add `{output}/` to "
                "`.gitignore` (or to `tool.hatch.build.targets.sdist.exclude`) so it carries "
                "only sources"
            )

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        """Remove the editable build's scratch folder (its `.pth` is in the wheel now)."""
        del version, build_data, artifact_path
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None
