"""The compiled agent of the test harness: built extensions mounted at the root.

`eve build` compiles a whole agent folder. The harness mounts built extensions
without one, so it derives the same `CompiledAgent` from each extension's manifest
with the consumer's own assembly (`eve_build.consumer.assemble.add_mount`): the same
names, prefixes, subagent paths, hook order and state keys as `eve build`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eve_build._version import __version__
from eve_build.consumer.assemble import add_mount, derive_compiled_mount
from eve_build.consumer.resolve import TreeDraft
from eve_build.diagnostics import Diagnostic
from eve_build.errors import DiagnosticsError
from eve_build.formats.compiled import AGENT_PACKAGE, CompiledAgent
from eve_build.formats.freshness import derive_manifest_hash
from eve_build.formats.manifest import Manifest
from eve_build.sdk.env import serialize_deferred

AGENT_DIR = "agent"


@dataclass(frozen=True)
class MountSource:
    """A built extension to mount under `namespace`, with its config."""

    namespace: str
    manifest: Manifest
    output_dir: Path  # the folder holding the import package (`build/eve`)
    config: Mapping[str, Any] = field(default_factory=dict)
    file: str | None = None  # where the mount call is (the test file); diagnostics name it

    @property
    def mount_path(self) -> str:
        return f"extensions/{self.namespace}"


def derive_compiled_agent(mounts: Sequence[MountSource]) -> CompiledAgent:
    """Each source mounted at `extensions/<namespace>` of an otherwise empty agent.

    Raises DiagnosticsError when a mounted package's files cannot be used.
    """
    root = TreeDraft(path="")
    found: list[Diagnostic] = []
    for source in sorted(mounts, key=lambda m: m.namespace):  # hooks run in namespace order
        package = source.manifest.package
        compiled = derive_compiled_mount(
            source.manifest, namespace=source.namespace, mount_path=source.mount_path,
            file=source.file or f"{AGENT_DIR}/{source.mount_path}.py",
            module=f"{AGENT_PACKAGE}.{source.mount_path.replace('/', '.')}",
            source_backed=False, config=serialize_deferred(dict(source.config)),
            manifest_hash=derive_manifest_hash(source.output_dir / package.import_name),
        )
        found.extend(add_mount(root, compiled, source.manifest,
                               source.output_dir / package.import_name))
    if any(d.is_error for d in found):
        raise DiagnosticsError("cannot mount the extension", found)
    return CompiledAgent(
        built_with_eve=__version__, agent_dir=AGENT_DIR, root=root.freeze(),
        sys_path=list(dict.fromkeys(str(m.output_dir.resolve()) for m in mounts)))
