"""`.eve/compile/compiled-agent.json`: the resolved surface the runtime host loads.

This model is the contract between `eve build` (which writes it) and the runtime
(`eve call`, `eve dev`, the pytest plugin), which loads it. Paths are POSIX and
relative to the app root. Config values given through `env(...)` are recorded as
`{"$env": "NAME"}`, never as values.

How code is found at run time:
- a contribution of an installed or workspace extension has `module` set to its
  real dotted module (`acme_crm.extension.tools.search`);
- a file of the agent itself (its own tools, override files, mount files) is
  imported from the agent folder as the synthetic package AGENT_PACKAGE:
  `agent/tools/foo.py` -> `eve_agent.tools.foo`, `agent/extensions/crm.py` ->
  `eve_agent.extensions.crm`;
- `sys_path` lists folders (workspace extension outputs) to put on sys.path first.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from eve_build.userfile import read_user_text

COMPILED_FORMAT_VERSION = 1
AGENT_PACKAGE = "eve_agent"
COMPILED_PATH = ".eve/compile/compiled-agent.json"
DIAGNOSTICS_PATH = ".eve/discovery/diagnostics.json"

Source = Literal["agent", "package", "directory-override", "root-override"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)


class CompiledMount(_Model):
    """One mount of one extension package."""

    namespace: str  # "crm", from the mount file's name
    mount_path: str = Field(alias="mountPath")  # logical: "extensions/crm",
    # "subagents/reviewer/extensions/crm"; keys state
    file: str  # the mount file, relative to the app root
    module: str  # dotted module of the mount file, e.g. "eve_agent.extensions.crm"
    package: str  # distribution name "acme-crm"
    import_name: str = Field(alias="import")  # "acme_crm"
    version: str
    manifest_hash: str = Field(default="", alias="manifestHash")  # "sha256:..." of the
    # package's _manifest.json when built: the host refuses to load when it changed
    built_with_eve: str = Field(alias="builtWithEve")
    requires: dict[str, int]
    source_backed: bool = Field(alias="sourceBacked")
    config: dict[str, Any]  # build-time view: env values as {"$env": NAME}
    config_schema: dict[str, Any] | None = Field(alias="configSchema")
    parent_mount: str | None = Field(default=None, alias="parentMount")  # mount_path of the
    # extension whose subagent holds this mount (its config may derive from the parent's)


class CompiledContribution(_Model):
    """One resolved contribution, with where its definition lives."""

    kind: Literal["tool", "channel", "connection", "schedule", "hook", "skill", "subagent"]
    name: str  # as the agent sees it: "crm__search"; hooks keep their local name
    local_name: str = Field(alias="localName")  # "search"
    mount: str | None  # namespace, None for the agent's own
    mount_path: str | None = Field(default=None, alias="mountPath")  # binding for the call
    source: Source
    module: str | None  # dotted module holding the definition (None for skills)
    attribute: str | None  # "tool", "channel"...
    file: str  # for messages: app-relative file, or package-relative for package files
    identity: str  # the original definition's identity ("acme_crm:tools/search.py")
    details: dict[str, Any] = Field(default_factory=dict)  # inputSchema, route, cron, events...


class CompiledInstructions(_Model):
    mount: str | None
    mount_path: str | None = Field(default=None, alias="mountPath")
    kind: Literal["markdown", "dynamic"]
    file: str
    module: str | None = None  # for dynamic instructions
    text: str | None = None  # for markdown


class CompiledState(_Model):
    key: str  # "extensions/crm:requests"
    mount_path: str = Field(alias="mountPath")
    name: str
    package: str


class CompiledTree(_Model):
    """The root agent or one subagent (path "reviewer", "crm__reviewer/checker")."""

    path: str
    name: str | None = None
    description: str | None = None
    model: str | None = None
    agent_module: str | None = Field(default=None, alias="agentModule")
    mount: str | None = None  # namespace when contributed by an extension
    instructions: list[CompiledInstructions] = Field(default_factory=list)
    mounts: list[CompiledMount] = Field(default_factory=list)
    tools: list[CompiledContribution] = Field(default_factory=list)
    channels: list[CompiledContribution] = Field(default_factory=list)
    connections: list[CompiledContribution] = Field(default_factory=list)
    schedules: list[CompiledContribution] = Field(default_factory=list)
    skills: list[CompiledContribution] = Field(default_factory=list)
    hooks: list[CompiledContribution] = Field(default_factory=list)  # in run order
    subagents: list[CompiledTree] = Field(default_factory=list)
    states: list[CompiledState] = Field(default_factory=list)


class CompiledAgent(_Model):
    format_version: int = Field(default=COMPILED_FORMAT_VERSION, alias="formatVersion")
    built_with_eve: str = Field(alias="builtWithEve")
    agent_dir: str = Field(alias="agentDir")  # "agent" or "agents/support/agent"
    sys_path: list[str] = Field(default_factory=list, alias="sysPath")
    root: CompiledTree


def walk_trees(tree: CompiledTree) -> list[CompiledTree]:
    """`tree` and every subagent tree below it, depth first, parents before children."""
    trees = [tree]
    for sub in tree.subagents:
        trees.extend(walk_trees(sub))
    return trees


def serialize_compiled(agent: CompiledAgent) -> str:
    return json.dumps(agent.model_dump(by_alias=True), indent=2, ensure_ascii=False) + "\n"


def read_compiled(app_root: Path) -> CompiledAgent:
    """Parse `.eve/compile/compiled-agent.json` (raises FileNotFoundError, ValidationError)."""
    text = read_user_text(app_root / COMPILED_PATH, what="compiled agent")
    return CompiledAgent.model_validate_json(text)
