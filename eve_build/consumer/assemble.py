"""Assemble the compiled agent: the agent's own tree, then each mount into the tree that
holds it, with overrides applied, states keyed and channel routes checked.

Order is fixed, so hooks run in it: in each tree the tree's own hooks first, then each
mount by its namespace (a flat and a directory mount sort by the same name), a mount's
package hooks before the hooks added beside its directory mount.
"""

from __future__ import annotations

import os
from pathlib import Path

from eve_build._version import __version__
from eve_build.consumer.agent_files import AgentFiles
from eve_build.consumer.app import App
from eve_build.consumer.compiled import (
    AGENT_PACKAGE,
    CompiledAgent,
    CompiledContribution,
    CompiledMount,
    CompiledState,
)
from eve_build.consumer.evaluate import EvaluatedMount
from eve_build.consumer.overrides import apply_overrides
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
from eve_build.diagnostics import Diagnostic, error
from eve_build.output.generate import SOURCE_PACKAGE
from eve_build.sdk.binding import derive_state_key


def assemble_agent(app: App, files: AgentFiles, mounts: list[EvaluatedMount],
                   sys_path: list[str]) -> tuple[CompiledAgent, list[Diagnostic]]:
    origin = Origin(namespace=None, mount_path=None, module_base=AGENT_PACKAGE,
                    file_base=app.display, text_root=app.agent_dir, identity_base="agent:",
                    source="agent")
    record = files.record
    agent = files.agent
    root = TreeDraft(
        path="", description=agent.description if agent else None,
        model=agent.model if agent else None,
        agent_module=f"{AGENT_PACKAGE}.{dotted('agent.py')}" if agent else None,
        instructions=derive_instructions(record, origin),
        items=derive_items(record, origin, prefixed=False),
        subagents=derive_subagents(record, origin, "", prefixed=False),
    )
    found: list[Diagnostic] = []
    order = sorted(mounts, key=lambda m: (m.located.site.depth, m.located.site.tree_path,
                                          m.located.site.namespace))
    for mount in order:
        draft = find_draft(root, mount.located.site.tree_path)
        if draft is not None:
            found.extend(_add_mount(draft, mount, files))
    found.extend(find_route_conflicts(root, {m.located.site.mount_path: m.located.site.shown
                                             for m in mounts}))
    compiled = CompiledAgent(built_with_eve=__version__, agent_dir=app.agent_dir_name,
                             sys_path=sys_path, root=root.freeze())
    return compiled, found


def _add_mount(draft: TreeDraft, mount: EvaluatedMount, files: AgentFiles) -> list[Diagnostic]:
    located = mount.located
    site, manifest = located.site, located.manifest
    origin = Origin(
        namespace=site.namespace, mount_path=site.mount_path,
        module_base=f"{located.import_name}.{SOURCE_PACKAGE}",
        file_base=f"{located.import_name}/{SOURCE_PACKAGE}/",
        text_root=located.package_dir / SOURCE_PACKAGE,
        identity_base=f"{located.import_name}:", source="package",
    )
    record = manifest.contributions
    items = derive_items(record, origin, prefixed=True)
    found = apply_overrides(items, files.overrides.get(site.mount_path, []),
                            namespace=site.namespace, package=manifest.package.name)
    items["hooks"].extend(files.hooks.get(site.mount_path, []))
    for slot in ITEM_SLOTS:
        draft.items[slot.directory].extend(items[slot.directory])
    draft.instructions.extend([*derive_instructions(record, origin),
                               *files.instructions.get(site.mount_path, [])])
    draft.subagents.extend(derive_subagents(record, origin, draft.path, prefixed=True))
    draft.mounts.append(CompiledMount(
        namespace=site.namespace, mount_path=site.mount_path, file=site.shown,
        module=site.module, package=manifest.package.name, import_name=located.import_name,
        version=manifest.package.version, built_with_eve=manifest.built_with_eve,
        requires={k: int(v) for k, v in manifest.requires.items()},
        source_backed=located.source_backed, config=mount.config.data,
        config_schema=manifest.config,
        parent_mount=site.parent.mount_path if site.parent else None,
    ))
    draft.states.extend(
        CompiledState(key=derive_state_key(site.mount_path, str(state["name"])),
                      mount_path=site.mount_path, name=str(state["name"]),
                      package=manifest.package.name)
        for state in record.get("states", []) if isinstance(state, dict)
    )
    return found


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
                f"give one of them another route: override the channel (e.g. "
                f"`agent/channels/{channel.name}.py`) with `define_channel(route=...)`",
            ))
    return found


def _origin_file(channel: CompiledContribution, mount_files: dict[str, str]) -> str:
    if channel.source == "package" and channel.mount_path in mount_files:
        return mount_files[channel.mount_path]
    return channel.file


def derive_sys_path(outputs: list[Path], app_root: Path) -> list[str]:
    """Folders for `CompiledAgent.sys_path`, relative to the app root (may start with `..`)."""
    return [Path(os.path.relpath(p, app_root)).as_posix() for p in outputs]
