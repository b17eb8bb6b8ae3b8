"""A compiled agent for extensions mounted in tests, derived from their manifests.

`eve build` compiles a whole agent from its folder. The test harness only mounts
built extensions, so it derives the same model (`CompiledAgent`) straight from
each extension's `_manifest.json`: tools and subagents under `<namespace>__`,
hooks in mount order, state keyed by mount path.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eve_build import slots
from eve_build._version import __version__
from eve_build.consumer.compiled import (
    AGENT_PACKAGE,
    CompiledAgent,
    CompiledContribution,
    CompiledMount,
    CompiledState,
    CompiledTree,
)
from eve_build.manifest import Manifest
from eve_build.naming import Namespace, derive_qualified
from eve_build.sdk.binding import derive_state_key
from eve_build.sdk.env import serialize_deferred

_KINDS = {"tools": "tool", "hooks": "hook"}


@dataclass(frozen=True)
class MountSource:
    """A built extension to mount under `namespace`, with its config."""

    namespace: str
    manifest: Manifest
    output_dir: Path  # the folder holding the import package (`build/eve`)
    config: Mapping[str, Any] = field(default_factory=dict)


def derive_compiled_agent(
    mounts: Sequence[MountSource], *, agent_dir: str = "agent",
    agent_hooks: Sequence[str] = (), agent_tools: Sequence[str] = (),
) -> CompiledAgent:
    """Mount each source at `extensions/<namespace>`; agent files are paths in agent_dir."""
    root = CompiledTree(path="")
    for path in agent_tools:
        root.tools.append(_agent_contribution("tool", path))
    for path in agent_hooks:
        root.hooks.append(_agent_contribution("hook", path))
    for source in sorted(mounts, key=lambda m: m.namespace):
        _add_mount(root, source, agent_dir)
    return CompiledAgent.model_validate({
        "builtWithEve": __version__, "agentDir": agent_dir,
        "sysPath": list(dict.fromkeys(str(m.output_dir.resolve()) for m in mounts)),
        "root": root.model_dump(by_alias=True),
    })


def _agent_contribution(kind: str, path: str) -> CompiledContribution:
    slot = slots.TOOLS if kind == "tool" else slots.HOOKS
    name = path.removesuffix(".py").replace("/", slot.joiner or "/")
    return CompiledContribution.model_validate({
        "kind": kind, "name": name, "localName": name, "mount": None, "source": "agent",
        "module": f"{AGENT_PACKAGE}.{slot.directory}.{path.removesuffix('.py').replace('/', '.')}",
        "attribute": kind, "file": f"{slot.directory}/{path}",
        "identity": f"agent:{slot.directory}/{path}",
    })


def _add_mount(root: CompiledTree, source: MountSource, agent_dir: str) -> None:
    manifest, namespace = source.manifest, source.namespace
    mount_path = f"extensions/{namespace}"
    root.mounts.append(CompiledMount.model_validate({
        "namespace": namespace, "mountPath": mount_path,
        "file": f"{agent_dir}/extensions/{namespace}.py",
        "module": f"{AGENT_PACKAGE}.extensions.{namespace}",
        "package": manifest.package.name, "import": manifest.package.import_name,
        "version": manifest.package.version, "builtWithEve": manifest.built_with_eve,
        "requires": manifest.requires, "sourceBacked": False,
        "config": serialize_deferred(dict(source.config)), "configSchema": manifest.config,
    }))
    _add_contributions(root, manifest.contributions, source, mount_path, prefix=True)
    for state in manifest.contributions.get("states", []):
        root.states.append(CompiledState.model_validate({
            "key": derive_state_key(mount_path, state["name"]), "mountPath": mount_path,
            "name": state["name"], "package": manifest.package.name,
        }))


def _add_contributions(tree: CompiledTree, record: Mapping[str, Any], source: MountSource,
                       mount_path: str, *, prefix: bool) -> None:
    manifest, namespace = source.manifest, source.namespace
    for slot, kind in _KINDS.items():
        target = tree.tools if kind == "tool" else tree.hooks
        for item in record.get(slot, []):
            name = item["name"]
            prefixed = prefix and kind == "tool"
            qualified = derive_qualified(Namespace(namespace), name) if prefixed else name
            dotted = item["file"].removesuffix(".py").replace("/", ".")
            target.append(CompiledContribution.model_validate({
                "kind": kind, "name": qualified, "localName": name, "mount": namespace,
                "mountPath": mount_path, "source": "package",
                "module": f"{manifest.package.import_name}.extension.{dotted}",
                "attribute": kind, "file": item["file"], "identity": item["identity"],
                "details": {k: v for k, v in item.items()
                            if k not in ("name", "file", "identity")},
            }))
    for sub in record.get("subagents", []):
        path = (derive_qualified(Namespace(namespace), sub["name"]) if tree.path == ""
                else f"{tree.path}/{sub['name']}")
        child = CompiledTree(path=path, name=sub["name"], description=sub.get("description"),
                             model=sub.get("model"), mount=namespace)
        _add_contributions(child, sub.get("contributions", {}), source, mount_path, prefix=False)
        tree.subagents.append(child)
