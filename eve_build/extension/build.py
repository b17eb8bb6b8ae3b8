"""`eve extension build`: pyproject -> discover -> load -> check -> generate -> write.

    result = build_extension(Path("acme-crm"))

Every problem found on the way is collected; if any is an error, one
DiagnosticsError lists them all and the previous output is left as it was.
"""

from __future__ import annotations

import hashlib
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from eve_build.capabilities import MANIFEST_FILENAME
from eve_build.capabilities import SOURCE_PACKAGE_DIR as SOURCE_PACKAGE
from eve_build.diagnostics import Diagnostic, Diagnostics, error
from eve_build.engine.cache import derive_environment_digest, locate_cache_dir
from eve_build.engine.cache_folder import claim_cache_folder
from eve_build.engine.stamp import (
    Stamp,
    derive_build_fingerprint,
    find_current_build,
    read_output_state,
    write_stamp,
)
from eve_build.engine.zygote import Zygote, warm_workers
from eve_build.errors import DiagnosticsError
from eve_build.extension.guards import (
    find_foreign_output,
    find_output_escape,
    find_unsafe_output,
    is_output_current,
)
from eve_build.formats.freshness import (
    RECORD_FILE,
    Inputs,
    derive_record,
    read_inputs,
    serialize_record,
)
from eve_build.formats.writer import repair_output, write_tree
from eve_build.project.budget import read_import_timeout
from eve_build.project.pyproject import (
    ExtensionProject,
    parse_extension_project,
    read_pyproject,
)
from eve_build.project.roots import locate_extension_root
from eve_build.userfile import read_user_bytes

if TYPE_CHECKING:  # the modules that check and generate are imported only when needed:
    # a build whose stamp is current (nothing changed) never loads them
    from eve_build.engine.author import CheckedSource
    from eve_build.formats.manifest import Manifest
    from eve_build.source.layout import SourceLayout

@dataclass(frozen=True)
class BuildResult:
    project: ExtensionProject
    files: tuple[str, ...]  # written, relative to the output folder
    warnings: tuple[Diagnostic, ...]
    tools: int  # tools at the root of the extension
    requires: dict[str, str]  # the manifest's `requires`
    imported: tuple[str, ...] = ()  # modules imported by this build (the rest came cached)
    written: bool = True  # False when the output already held exactly these files
    checked: bool = True  # False when the stamp said nothing changed (nothing was run)
    digests: dict[str, str] = field(default_factory=dict, repr=False, compare=False)
    """sha256 (hex) of every output file, by path under the output folder (full builds)."""
    _manifest: Manifest | None = field(default=None, repr=False, compare=False)
    _manifest_data: dict[str, Any] | None = field(default=None, repr=False, compare=False)

    @property
    def manifest(self) -> Manifest:
        """The built manifest (read from the output when the build was skipped)."""
        if self._manifest is None and self._manifest_data is not None:
            from eve_build.formats.manifest import Manifest

            object.__setattr__(self, "_manifest", Manifest.model_validate(self._manifest_data))
        if self._manifest is None:
            from eve_build.formats.manifest import read_manifest

            path = self.package_dir / SOURCE_PACKAGE / MANIFEST_FILENAME
            object.__setattr__(self, "_manifest", read_manifest(path))
        assert self._manifest is not None
        return self._manifest

    @property
    def output_dir(self) -> Path:
        return self.project.output_dir

    @property
    def package_dir(self) -> Path:
        return self.project.output_dir / self.project.import_name


def _read_output_counts(project: ExtensionProject) -> tuple[int, dict[str, Any]] | None:
    """The tool count and `requires` of the manifest in the output: what a skipped build
    reports is this build's, never only what a stamp (a file in the cache folder) says.
    Plain JSON: a skipped build imports no checking code."""
    import json

    path = project.output_dir / project.import_name / SOURCE_PACKAGE / MANIFEST_FILENAME
    try:
        data = json.loads(read_user_bytes(path, what="manifest").data)
        tools = data["contributions"].get("tools", [])
        requires = data["requires"]
    except (OSError, ValueError, RecursionError, KeyError, TypeError, AttributeError):
        return None
    if not isinstance(tools, list) or not isinstance(requires, dict):
        return None
    return len(tools), requires


def locate_extension_project(root: Path) -> ExtensionProject:
    """Read and check pyproject.toml; raises DiagnosticsError."""
    data, found = read_pyproject(root)
    if data is None:
        raise DiagnosticsError("cannot build extension", found)
    project, found = parse_extension_project(root, data)
    if project is None:
        raise DiagnosticsError("cannot build extension", found)
    return project


def build_extension(root: Path, *, write: bool = True, use_cache: bool = True,
                    workers: int | None = None, verify: bool = False,
                    zygote: Zygote | None = None) -> BuildResult:
    """Build the extension package at `root` into its output folder (atomically).

    Its modules are imported and checked in worker processes (`eve_build.engine`),
    through the build cache unless `use_cache` is False; `workers` forces how many
    (None: one for a small extension, all cores for a large one). An output that would
    not change is not rewritten, and when the build stamp says nothing changed since
    the last build (engine.stamp), nothing is imported or checked either. `verify`
    (what the hook and `eve extension pack` ask for) trusts the stamp only when every
    output file still has the content hash the build recorded. `zygote`: one the caller
    started early (engine.zygote.warm_workers), instead of one started here. A build
    that writes its output writes the freshness record with it (`formats.freshness`),
    also when the other files come out the same: the one rule every caller asks."""
    project = locate_extension_project(locate_extension_root(root))
    escape = find_output_escape(project) or find_unsafe_output(project)
    if write and escape:  # before anything is written, the cache beside the output included
        raise DiagnosticsError(f"cannot build extension `{project.name}`", escape)
    if write:
        repair_output(project.output_dir)  # a build killed inside its swap left the old output
    budget, found = read_import_timeout(project.import_timeout)
    if found:
        raise DiagnosticsError(f"cannot build extension `{project.name}`", found)
    cache_dir = locate_cache_dir(project.output_dir)
    foreign = claim_cache_folder(cache_dir) if write and use_cache and not escape else None
    use_cache = use_cache and foreign is None  # never read, write or delete in another's
    fingerprint = None
    environment = derive_environment_digest(project.dependencies)
    inputs = read_inputs(project.root, project.source) if write else None
    if inputs is not None and use_cache and not escape:
        fingerprint = derive_build_fingerprint(inputs, environment)
        stamp = find_current_build(cache_dir, fingerprint, project.output_dir, verify=verify)
        counts = _read_output_counts(project) if stamp is not None else None
        if stamp is not None and counts is not None:  # the output's counts, not the stamp's
            return BuildResult(project=project, files=stamp.files, warnings=stamp.warnings,
                               tools=counts[0], requires=counts[1], written=False,
                               checked=False, digests=stamp.digests)
    with nullcontext(zygote) if zygote else warm_workers() as warm:  # importing the
        result = _build_in_full(project, budget, use_cache=use_cache and not escape,
                                write=write, workers=workers, inputs=inputs,  # workers'
                                environment=environment, zygote=warm)  # code meanwhile
    if fingerprint is not None:
        write_stamp(cache_dir, Stamp(fingerprint, read_output_state(project.output_dir),
                                     result.files, result.tools, result.requires,
                                     result.warnings, result.digests))
    if foreign is not None:
        result = replace(result, warnings=(foreign, *result.warnings))
    return result


def _build_in_full(project: ExtensionProject, budget: float, *, use_cache: bool,
                   write: bool, workers: int | None, inputs: Inputs | None,
                   environment: str, zygote: Zygote | None) -> BuildResult:
    """Discover, check (through the cache), generate and write the output with its
    freshness record (`formats.freshness`); `inputs` holds what the build reads, read
    once for the record (None: not writing, or the walk could not vouch for the tree:
    the output is then written without a record, so it is never current)."""
    from eve_build.engine.author import check_source
    from eve_build.engine.cache import BuildCache
    from eve_build.extension.shipping import derive_digests
    from eve_build.source.discover import discover_source
    from eve_build.source.skills import find_unreadable_instructions

    collected = Diagnostics()
    sources = inputs.data if inputs is not None else {}
    display = f"{project.source}/"
    layout, found = discover_source(project.source_dir, display=display,
                                    package_root=project.root)
    collected.extend(found)
    cache = BuildCache(locate_cache_dir(project.output_dir)) if use_cache else None
    checked = check_source(project, layout, budget=budget, cache=cache, workers=workers,
                           collected=collected, sources=sources, environment=environment,
                           zygote=zygote)
    collected.extend(find_unreadable_instructions(layout, project.source_dir, display))
    if collected.has_errors:
        raise DiagnosticsError(f"cannot build extension `{project.name}`", collected)
    files, manifest = _derive_files(project, layout, checked, sources)
    digests = derive_digests(files, manifest["files"], project.import_name)
    if inputs is not None:  # written with the output: the output is current for `inputs`
        record = derive_record(inputs, project.output_dir, project.root, project.import_name,
                               digests)
        files[RECORD_FILE] = serialize_record(record)
        digests[RECORD_FILE] = hashlib.sha256(files[RECORD_FILE]).hexdigest()
    written = False  # True when a file other than the record changed
    if write and not is_output_current(project.output_dir, files):
        written = not is_output_current(project.output_dir, files, ignored=RECORD_FILE)
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
    files.pop(RECORD_FILE, None)  # the output's files, as the command reports them
    return BuildResult(project=project, files=tuple(sorted(files)),
                       warnings=tuple(collected.warnings), imported=tuple(checked.imported),
                       tools=len(manifest["contributions"].get("tools", [])),
                       requires=dict(manifest["requires"]), written=written,
                       _manifest_data=manifest, digests=digests)


def _derive_files(
    project: ExtensionProject, layout: SourceLayout, checked: CheckedSource,
    sources: dict[str, bytes],
) -> tuple[dict[str, bytes], dict[str, Any]]:
    from eve_build._version import __version__
    from eve_build.capabilities import (
        MANIFEST_FORMAT_VERSION,
        MANIFEST_KIND,
        derive_requirements,
    )
    from eve_build.formats.json_text import derive_json_text
    from eve_build.output import generate

    base, source = project.import_name, project.source_dir
    files: dict[str, bytes] = {}
    hashes: dict[str, str] = {}
    for relative in layout.files:
        data = sources[relative] if relative in sources else read_user_bytes(source / relative).data
        files[f"{base}/{SOURCE_PACKAGE}/{relative}"] = data
        hashes[relative] = f"sha256:{hashlib.sha256(data).hexdigest()}"
    has_config = checked.config_schema is not None
    files[f"{base}/__init__.py"] = generate.render_factory(project, has_config).encode()
    files[f"{base}/__init__.pyi"] = generate.render_factory_stub(
        project, checked.stub_parameters, checked.stub_classes).encode()
    files[f"{base}/tools/__init__.py"] = generate.render_tools(project, checked.root_tools).encode()
    files[f"{base}/tools/__init__.pyi"] = generate.render_tools_stub(checked.root_tools).encode()
    files[f"{base}/py.typed"] = b""
    manifest: dict[str, Any] = {  # the order and shape of `Manifest.model_dump(by_alias=True)`
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
    }  # serialized as the model would be, without importing pydantic in this process
    files[f"{base}/{SOURCE_PACKAGE}/{MANIFEST_FILENAME}"] = \
        (derive_json_text(manifest, checked.fragments) + "\n").encode()
    return files, manifest
