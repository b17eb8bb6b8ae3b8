"""`eve extension build`: pyproject -> discover -> load -> check -> generate -> write.

    result = build_extension(Path("acme-crm"))

Every problem found on the way is collected; if any is an error, one
DiagnosticsError lists them all and the previous output is left as it was.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from eve_build import slots
from eve_build._version import __version__
from eve_build.capabilities import MANIFEST_FORMAT_VERSION, MANIFEST_KIND, derive_requirements
from eve_build.diagnostics import Diagnostic, Diagnostics, error
from eve_build.errors import DiagnosticsError
from eve_build.load.contributions import Checked, check_contributions
from eve_build.load.importer import import_modules, isolated_package
from eve_build.manifest import MANIFEST_FILENAME, Manifest, serialize_manifest
from eve_build.output import generate
from eve_build.output.writer import write_tree
from eve_build.project.pyproject import ExtensionProject, parse_extension_project, read_pyproject
from eve_build.project.roots import locate_extension_root
from eve_build.source.discover import discover_source
from eve_build.source.layout import SourceLayout


@dataclass(frozen=True)
class BuildResult:
    project: ExtensionProject
    manifest: Manifest
    files: tuple[str, ...]  # written, relative to the output folder
    warnings: tuple[Diagnostic, ...]

    @property
    def output_dir(self) -> Path:
        return self.project.output_dir

    @property
    def package_dir(self) -> Path:
        return self.project.output_dir / self.project.import_name


def locate_extension_project(root: Path) -> ExtensionProject:
    """Read and check pyproject.toml; raises DiagnosticsError."""
    data, found = read_pyproject(root)
    if data is None:
        raise DiagnosticsError("cannot build extension", found)
    project, found = parse_extension_project(root, data)
    if project is None:
        raise DiagnosticsError("cannot build extension", found)
    return project


def build_extension(root: Path, *, write: bool = True) -> BuildResult:
    """Build the extension package at `root` into its output folder (atomically)."""
    project = locate_extension_project(locate_extension_root(root))
    collected = Diagnostics()
    display = f"{project.source}/"
    layout, found = discover_source(project.source_dir, display=display,
                                    package_root=project.root)
    collected.extend(found)
    package = f"{project.import_name}.{generate.SOURCE_PACKAGE}"
    with isolated_package(package, project.source_dir):
        loaded, found = import_modules(
            package, project.source_dir, _modules_to_load(layout, project), display=display,
            package_root=project.root,
        )
        collected.extend(found)
        checked, found = check_contributions(
            layout.tree, loaded, source=project.source_dir, display=display,
            identity_prefix=f"{project.import_name}:",
        )
        collected.extend(found)
        if collected.has_errors:
            raise DiagnosticsError(f"cannot build extension `{project.name}`", collected)
        files = _derive_files(project, layout, checked)
    manifest = Manifest.model_validate_json(files[_manifest_path(project)])
    if write:
        foreign = find_foreign_output(project)
        if foreign:
            raise DiagnosticsError(f"cannot build extension `{project.name}`", foreign)
        try:
            write_tree(project.output_dir, files)
        except OSError as exc:
            raise DiagnosticsError(f"cannot build extension `{project.name}`", [error(
                "output/write-failed", project.output,
                f"writing `{project.output}` failed: {exc}; the previous output is kept",
                "check the folder's permissions and free disk space, then build again",
            )]) from exc
    return BuildResult(project=project, manifest=manifest, files=tuple(sorted(files)),
                       warnings=tuple(collected.warnings))


def find_foreign_output(project: ExtensionProject) -> list[Diagnostic]:
    """Entries of the output folder that no eve build wrote: a build must not delete them."""
    output = project.output_dir
    if not output.exists():
        return []
    entries = [output] if not output.is_dir() else sorted(output.iterdir())
    foreign = [
        entry for entry in entries
        if not (entry / generate.SOURCE_PACKAGE / MANIFEST_FILENAME).is_file()
    ]
    return [error(
        "output/foreign-files", project.output,
        f"`{entry.relative_to(project.root).as_posix()}` was not written by eve-build, and each "
        f"build replaces `{project.output}` whole",
        f"move it out of `{project.output}`, or set `tool.eve.extension.output` to a folder "
        "of its own",
    ) for entry in foreign]


def _modules_to_load(layout: SourceLayout, project: ExtensionProject) -> list[str]:
    paths: list[str] = []
    if (project.source_dir / slots.EXTENSION_MODULE).is_file():
        paths.append(slots.EXTENSION_MODULE)
    for tree in layout.tree.walk():
        if tree.agent_module:
            paths.append(tree.agent_module)
        paths.extend(entry.path for entry in tree.modules)
        if tree.instructions and tree.instructions.endswith(".py"):
            paths.append(tree.instructions)
    return list(dict.fromkeys(paths))


def _manifest_path(project: ExtensionProject) -> str:
    return f"{project.import_name}/{generate.SOURCE_PACKAGE}/{MANIFEST_FILENAME}"


def _derive_files(
    project: ExtensionProject, layout: SourceLayout, checked: Checked
) -> dict[str, bytes]:
    base = project.import_name
    files: dict[str, bytes] = {}
    hashes: dict[str, str] = {}
    for relative in layout.files:
        data = (project.source_dir / relative).read_bytes()
        files[f"{base}/{generate.SOURCE_PACKAGE}/{relative}"] = data
        hashes[relative] = f"sha256:{hashlib.sha256(data).hexdigest()}"
    has_config = checked.config_schema is not None
    files[f"{base}/__init__.py"] = generate.render_factory(project, has_config).encode()
    files[f"{base}/__init__.pyi"] = generate.render_factory_stub(
        project, checked.config_model).encode()
    files[f"{base}/tools/__init__.py"] = generate.render_tools(project, checked.root_tools).encode()
    files[f"{base}/tools/__init__.pyi"] = generate.render_tools_stub(checked.root_tools).encode()
    files[f"{base}/py.typed"] = b""
    manifest = Manifest.model_validate({
        "kind": MANIFEST_KIND,
        "formatVersion": MANIFEST_FORMAT_VERSION,
        "builtWithEve": __version__,
        "requires": derive_requirements(checked.capabilities),
        "build": {"externalDependencies": list(project.external_dependencies)},
        "package": {"name": project.name, "version": project.version,
                    "import": project.import_name},
        "config": checked.config_schema,
        "contributions": checked.contributions,
        "files": hashes,
    })
    files[_manifest_path(project)] = serialize_manifest(manifest).encode()
    return files
