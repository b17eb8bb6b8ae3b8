"""The compiled agent of the test harness: built extensions mounted at the root.

`eve build` compiles a whole agent folder. The harness mounts built extensions
without one, so it derives the same `CompiledAgent` from each extension's manifest
with the consumer's own resolution (`eve_build.consumer.resolve`): the same names,
prefixes, subagent paths, hook order and state keys as `eve build`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eve_build._version import __version__
from eve_build.consumer.compiled import (
    AGENT_PACKAGE,
    CompiledAgent,
    CompiledMount,
    CompiledState,
)
from eve_build.consumer.resolve import (
    ITEM_SLOTS,
    Origin,
    TreeDraft,
    derive_instructions,
    derive_items,
    derive_subagents,
)
from eve_build.manifest import Manifest
from eve_build.naming import Namespace
from eve_build.output.generate import SOURCE_PACKAGE
from eve_build.sdk.binding import derive_state_key
from eve_build.sdk.env import serialize_deferred

AGENT_DIR = "agent"


@dataclass(frozen=True)
class MountSource:
    """A built extension to mount under `namespace`, with its config."""

    namespace: str
    manifest: Manifest
    output_dir: Path  # the folder holding the import package (`build/eve`)
    config: Mapping[str, Any] = field(default_factory=dict)

    @property
    def mount_path(self) -> str:
        return f"extensions/{self.namespace}"


def derive_compiled_agent(mounts: Sequence[MountSource]) -> CompiledAgent:
    """Each source mounted at `extensions/<namespace>` of an otherwise empty agent."""
    root = TreeDraft(path="")
    for source in sorted(mounts, key=lambda m: m.namespace):  # hooks run in namespace order
        _add_mount(root, source)
    return CompiledAgent(
        built_with_eve=__version__, agent_dir=AGENT_DIR, root=root.freeze(),
        sys_path=list(dict.fromkeys(str(m.output_dir.resolve()) for m in mounts)))


def _add_mount(root: TreeDraft, source: MountSource) -> None:
    manifest, package = source.manifest, source.manifest.package
    origin = Origin(
        namespace=Namespace(source.namespace), mount_path=source.mount_path,
        module_base=f"{package.import_name}.{SOURCE_PACKAGE}",
        file_base=f"{package.import_name}/{SOURCE_PACKAGE}/",
        text_root=source.output_dir / package.import_name / SOURCE_PACKAGE,
        identity_base=f"{package.import_name}:", source="package",
    )
    record = manifest.contributions
    items = derive_items(record, origin, prefixed=True)
    for slot in ITEM_SLOTS:
        root.items[slot.directory].extend(items[slot.directory])
    root.instructions.extend(derive_instructions(record, origin))
    root.subagents.extend(derive_subagents(record, origin, root.path, prefixed=True))
    root.mounts.append(CompiledMount(
        namespace=source.namespace, mount_path=source.mount_path,
        file=f"{AGENT_DIR}/{source.mount_path}.py",
        module=f"{AGENT_PACKAGE}.{source.mount_path.replace('/', '.')}",
        package=package.name, import_name=package.import_name, version=package.version,
        built_with_eve=manifest.built_with_eve,
        requires={k: int(v) for k, v in manifest.requires.items()}, source_backed=False,
        config=serialize_deferred(dict(source.config)), config_schema=manifest.config,
    ))
    root.states.extend(
        CompiledState(key=derive_state_key(source.mount_path, str(state["name"])),
                      mount_path=source.mount_path, name=str(state["name"]),
                      package=package.name)
        for state in record.get("states", []) if isinstance(state, dict))
