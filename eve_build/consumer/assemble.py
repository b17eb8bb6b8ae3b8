"""Assemble the compiled agent: the agent's own tree, then each mount into the tree that
holds it, with overrides applied, states keyed and channel routes checked.

Order is fixed, so hooks run in it: in each tree the tree's own hooks first, then each
mount by its namespace (a flat and a directory mount sort by the same name), a mount's
package hooks before the hooks added beside its directory mount.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from eve_build._version import __version__
from eve_build.consumer.agent_files import AgentFiles
from eve_build.consumer.evaluate import EvaluatedMount
from eve_build.consumer.overrides import Override, apply_overrides
from eve_build.consumer.resolve import (
    ITEM_SLOTS,
    Origin,
    TreeDraft,
    derive_instructions,
    derive_items,
    derive_subagents,
    dotted,
    find_draft,
)
from eve_build.diagnostics import Diagnostic, error, warning
from eve_build.formats.compiled import (
    AGENT_PACKAGE,
    CompiledAgent,
    CompiledContribution,
    CompiledInstructions,
    CompiledMount,
    CompiledState,
    CompiledTree,
    walk_trees,
)
from eve_build.formats.freshness import derive_manifest_hash
from eve_build.formats.manifest import Manifest
from eve_build.naming import Namespace
from eve_build.output.generate import SOURCE_PACKAGE
from eve_build.placeholders import find_missing_tools, find_placeholder_line
from eve_build.project.app import App
from eve_build.sdk.binding import derive_state_key


def assemble_agent(app: App, files: AgentFiles, mounts: list[EvaluatedMount],
                   sys_path: list[str]) -> tuple[CompiledAgent, list[Diagnostic]]:
    origin = Origin(namespace=None, mount_path=None, module_base=AGENT_PACKAGE,
                    file_base=app.display, text_root=app.agent_dir, identity_base="agent:",
                    source="agent")
    record = files.record
    agent = files.agent
    found: list[Diagnostic] = []
    root = TreeDraft(
        path="", description=agent.description if agent else None,
        model=agent.model if agent else None,
        agent_module=f"{AGENT_PACKAGE}.{dotted('agent.py')}" if agent else None,
        instructions=derive_instructions(record, origin, found),
        items=derive_items(record, origin, prefixed=False),
        subagents=derive_subagents(record, origin, "", found, prefixed=False),
        states=derive_states(record, mount_path="", package=""),
    )
    order = sorted(mounts, key=lambda m: (m.located.site.depth, m.located.site.tree_path,
                                          m.located.site.namespace))
    for mount in order:
        draft = find_draft(root, mount.located.site.tree_path)
        if draft is not None:
            found.extend(_add_evaluated(draft, mount, files))
    found.extend(find_route_conflicts(root, {m.located.site.mount_path: m.located.site.shown
                                             for m in mounts}))
    compiled = CompiledAgent(built_with_eve=__version__, agent_dir=app.agent_dir_name,
                             sys_path=sys_path, root=root.freeze())
    found.extend(find_placeholder_problems(compiled.root))
    return compiled, found


def find_placeholder_problems(root: CompiledTree) -> list[Diagnostic]:
    """A warning for each instructions fragment whose `{{tool:NAME}}` names a tool its
    tree does not have (the prompt leaves that fragment out: eve_build.runtime.prompt).

    A name under one of the tree's connections is not judged: its tools are known only
    when the connection opens."""
    found: list[Diagnostic] = []
    for tree in walk_trees(root):
        tools = {item.name for item in tree.tools}
        remote = tuple(f"{c.name}__" for c in tree.connections)
        for item in tree.instructions:
            if item.kind != "markdown" or not item.text:
                continue
            missing = [name for name in find_missing_tools(item.text, item.mount, tools)
                       if not name.startswith(remote)]
            for name in missing:
                local = name.removeprefix(f"{item.mount}__") if item.mount else name
                found.append(warning(
                    "agent/instructions-tool-missing", item.file,
                    f"`{item.file}` names the tool `{name}` ({{{{tool:{local}}}}}), which "
                    + (f"the subagent `{tree.path}`" if tree.path else "the agent")
                    + " does not have; the fragment is left out of the prompt",
                    f"remove the mention, or keep the tool (an override with "
                    f"`disable_tool()` removes `{name}`)",
                    line=find_placeholder_line(item.text, local)))
    return found


def _add_evaluated(draft: TreeDraft, mount: EvaluatedMount, files: AgentFiles
                   ) -> list[Diagnostic]:
    located = mount.located
    site, manifest = located.site, located.manifest
    compiled = derive_compiled_mount(
        manifest, namespace=site.namespace, mount_path=site.mount_path, file=site.shown,
        module=site.module, source_backed=located.source_backed, config=mount.config.data,
        parent_mount=site.parent.mount_path if site.parent else None,
        manifest_hash=derive_manifest_hash(located.package_dir),
    )
    return add_mount(draft, compiled, manifest, located.package_dir,
                     overrides=files.overrides.get(site.mount_path, []),
                     hooks=files.hooks.get(site.mount_path, []),
                     instructions=files.instructions.get(site.mount_path, []),
                     subagent_overrides=files.subagent_overrides.get(site.mount_path, {}),
                     subagent_models=files.subagent_models.get(site.mount_path, {}))


def derive_compiled_mount(manifest: Manifest, *, namespace: str, mount_path: str, file: str,
                          module: str, source_backed: bool, config: dict[str, Any],
                          parent_mount: str | None = None, manifest_hash: str = ""
                          ) -> CompiledMount:
    """The compiled record of one mount of the package `manifest` describes."""
    package = manifest.package
    return CompiledMount(
        namespace=namespace, mount_path=mount_path, file=file, module=module,
        package=package.name, import_name=package.import_name, version=package.version,
        manifest_hash=manifest_hash, built_with_eve=manifest.built_with_eve,
        requires={k: int(v) for k, v in manifest.requires.items()},
        source_backed=source_backed, config=config, config_schema=manifest.config,
        parent_mount=parent_mount,
    )


def add_mount(draft: TreeDraft, mount: CompiledMount, manifest: Manifest, package_dir: Path, *,
              overrides: Sequence[Override] = (), hooks: Sequence[CompiledContribution] = (),
              instructions: Sequence[CompiledInstructions] = (),
              subagent_overrides: Mapping[str, Sequence[Override]] | None = None,
              subagent_models: Mapping[str, tuple[str, str]] | None = None,
              ) -> list[Diagnostic]:
    """Add one mount's contributions (prefixed, overridden), instructions, subagents and
    states to `draft`; `package_dir` is the import package (`.../acme_crm`).

    Overrides, hooks and instructions are the agent's own, beside the mount.
    """
    found: list[Diagnostic] = []
    origin = Origin(
        namespace=Namespace(mount.namespace), mount_path=mount.mount_path,
        module_base=f"{mount.import_name}.{SOURCE_PACKAGE}",
        file_base=f"{mount.import_name}/{SOURCE_PACKAGE}/",
        text_root=package_dir / SOURCE_PACKAGE,
        identity_base=f"{mount.import_name}:", source="package",
    )
    record = manifest.contributions
    items = derive_items(record, origin, prefixed=True)
    found.extend(apply_overrides(items, list(overrides), namespace=mount.namespace,
                                 package=mount.package))
    items["hooks"].extend(hooks)
    for slot in ITEM_SLOTS:
        draft.items[slot.directory].extend(items[slot.directory])
    draft.instructions.extend([*derive_instructions(record, origin, found), *instructions])
    subagents = derive_subagents(record, origin, draft.path, found, prefixed=True)
    found.extend(apply_subagent_overrides(subagents, subagent_overrides or {}, mount))
    for draft_sub in subagents:  # a consumer's model for a mounted subagent
        local = (draft_sub.name or "").removeprefix(f"{mount.namespace}__")
        if subagent_models and local in subagent_models:
            model, module = subagent_models[local]
            draft_sub.model = model
            draft_sub.agent_module = f"{AGENT_PACKAGE}.{dotted(module)}"
    draft.subagents.extend(subagents)
    draft.mounts.append(mount)
    draft.states.extend(derive_states(record, mount_path=mount.mount_path,
                                      package=mount.package))
    return found


def apply_subagent_overrides(subagents: Sequence[TreeDraft],
                             overrides: Mapping[str, Sequence[Override]], mount: CompiledMount
                             ) -> list[Diagnostic]:
    """Apply override folders to the mount's top-level subagents (by local name)."""
    found: list[Diagnostic] = []
    by_local = {(d.name or "").removeprefix(f"{mount.namespace}__"): d for d in subagents}
    for local, items in overrides.items():
        draft = by_local.get(local)
        if draft is None:
            known = ", ".join(f"`{n}`" for n in sorted(by_local)) or "none"
            found.extend(warning(
                "mount/override-unknown", o.file,
                f"`{o.file}` overrides something of the subagent `{local}` of the mount "
                f"`{mount.namespace}`, but `{mount.package}` has no subagent of that name; it "
                "is ignored", f"the subagents of `{mount.namespace}` are: {known}", line=o.line,
            ) for o in items)
            continue
        found.extend(apply_overrides(draft.items, list(items), namespace=mount.namespace,
                                     package=mount.package))
    return found


def derive_states(record: dict[str, Any], *, mount_path: str, package: str
                  ) -> list[CompiledState]:
    """The record's define_state() values, keyed by the mount path ("" for the agent)."""
    return [
        CompiledState(key=derive_state_key(mount_path, str(state["name"])),
                      mount_path=mount_path, name=str(state["name"]), package=package)
        for state in record.get("states", []) if isinstance(state, dict)
    ]


def find_route_conflicts(root: TreeDraft, mount_files: dict[str, str]) -> list[Diagnostic]:
    """Each channel route (method and path) may be claimed once in the whole agent."""
    claimed: dict[tuple[str, str], CompiledContribution] = {}
    found: list[Diagnostic] = []
    for draft in root.walk():
        for channel in draft.items["channels"]:
            route = str(channel.details.get("route"))
            method = str(channel.details.get("method", "POST"))
            first = claimed.setdefault((method, route), channel)
            if first is channel:
                continue
            found.append(error(
                "mount/route-conflict", _origin_file(channel, mount_files),
                f"the channels `{first.name}` (from `{_origin_file(first, mount_files)}`) and "
                f"`{channel.name}` (from `{_origin_file(channel, mount_files)}`) both claim "
                f"`{method} {route}`",
                f"give one of them another route: override the channel in "
                f"`agent/channels/{channel.name}.py` with `channel = original.replace("
                "route=...)`, where `original` is the mounted package's channel "
                "(docs/consumer.md, \"Channel routes\")",
            ))
    return found


def _origin_file(channel: CompiledContribution, mount_files: dict[str, str]) -> str:
    if channel.source == "package" and channel.mount_path in mount_files:
        return mount_files[channel.mount_path]
    return channel.file


def derive_sys_path(outputs: list[Path], app_root: Path) -> list[str]:
    """Folders for `CompiledAgent.sys_path`, relative to the app root (may start with `..`)."""
    return [Path(os.path.relpath(p, app_root)).as_posix() for p in outputs]
