"""Skills as MCP resources: `skill://crm__triage` is SKILL.md, each asset beside it a
resource of its own (`skill://crm__triage/templates/reply.txt`); the template
`skill://{name}` offers them by name, and a subscribed skill is announced when a
generation swap (`eve dev`, a reload) changes it.

Package skills are read from the installed (or workspace-built) package, the agent's
own skills from the agent folder; nothing is copied.
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib.util
import mimetypes
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from mcp import types

from eve_build.formats.compiled import CompiledContribution, CompiledTree, walk_trees
from eve_build.runtime.agent import Agent
from eve_build.runtime.trace import logger

SCHEME = "skill://"


@dataclass(frozen=True)
class SkillFile:
    uri: str
    name: str
    description: str
    path: Path
    mime_type: str


def find_skill_files(agent: Agent, app_root: Path, subagent: str | None) -> list[SkillFile]:
    """Every skill of the tree (and its assets) as a resource, in name order."""
    tree = _tree(agent, subagent)
    found: list[SkillFile] = []
    for skill in sorted(tree.skills if tree else [], key=lambda s: s.name):
        main = _locate(skill, app_root)
        if main is None:
            continue
        description = str(skill.details.get("description", ""))
        found.append(SkillFile(f"{SCHEME}{skill.name}", skill.name, description, main,
                               "text/markdown"))
        rel = PurePosixPath(skill.identity.partition(":")[2] or skill.file)
        for asset in skill.details.get("assets", []):
            inside = PurePosixPath(asset).relative_to(rel.parent)  # path below the skill folder
            found.append(SkillFile(f"{SCHEME}{skill.name}/{inside}", f"{skill.name}/{inside}",
                                   f"asset of the skill `{skill.name}`",
                                   main.parent.joinpath(*inside.parts), _mime(inside.name)))
    return found


def derive_mcp_resources(files: list[SkillFile]) -> list[types.Resource]:
    return [types.Resource(uri=f.uri, name=f.name, description=f.description,
                           mime_type=f.mime_type) for f in files]


def read_skill_resource(files: list[SkillFile], uri: str) -> types.ReadResourceResult:
    """The text of one resource; raises LookupError for a URI that is not one."""
    for item in files:
        if item.uri == uri:
            text = item.path.read_text(encoding="utf-8", errors="replace")
            return types.ReadResourceResult(contents=[types.TextResourceContents(
                uri=uri, mime_type=item.mime_type, text=text)])
    raise LookupError(f"no resource `{uri}`: skills are `skill://<name>` and their assets "
                      "`skill://<name>/<path>`")


def _tree(agent: Agent, subagent: str | None) -> CompiledTree | None:
    for tree in walk_trees(agent.compiled.root):
        if tree.path == (subagent or "") or (not subagent and tree is agent.compiled.root):
            return tree
    return None


def _locate(skill: CompiledContribution, app_root: Path) -> Path | None:
    """The skill file on disk: package files from the package, the rest from the app."""
    if skill.source != "package":
        return app_root / skill.file
    package = skill.file.split("/", 1)[0]
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))).parent / skill.file


def _mime(name: str) -> str:
    if name.endswith(".md"):
        return "text/markdown"
    return mimetypes.guess_type(name)[0] or "text/plain"


SKILL_TEMPLATE = "skill://{name}"


def derive_mcp_templates() -> list[types.ResourceTemplate]:
    """The one template: a skill by name (its assets stay plain resources)."""
    return [types.ResourceTemplate(name="skill", uri_template=SKILL_TEMPLATE,
                                   description="A skill of the agent by name: its SKILL.md",
                                   mime_type="text/markdown")]


class SkillSubscriptions:
    """Who subscribed to which resource, and the notice when a generation swap changes
    one (`notifications/resources/updated`).

    Any URI may be subscribed (a resource that appears later included); only skill
    resources ever change. `files` gives the current skill files; `changed()` is called
    by whoever swaps generations (any thread): each subscribed URI whose content
    differs from what it was when last seen is announced to its subscribers.
    """

    def __init__(self) -> None:
        self._files: Callable[[], list[SkillFile]] = list
        self._lock = threading.Lock()
        # client -> (the session to notify, its loop, {uri: fingerprint})
        self._sessions: dict[object, tuple[Any, asyncio.AbstractEventLoop,
                                           dict[str, str | None]]] = {}

    def watch(self, files: Callable[[], list[SkillFile]]) -> None:
        self._files = files

    def subscribe(self, client: object, session: Any, uri: str) -> None:
        """`client` names the connection (see `derive_client`); `session` sends to it."""
        seen = self._fingerprints([uri]).get(uri)
        with self._lock:
            uris = self._sessions.get(client, (None, None, {}))[2]
            uris[uri] = seen
            self._sessions[client] = (session, asyncio.get_running_loop(), uris)

    def unsubscribe(self, client: object, uri: str) -> None:
        with self._lock:
            entry = self._sessions.get(client)
            if entry is not None:
                entry[2].pop(uri, None)
                if not entry[2]:
                    del self._sessions[client]

    def subscribed(self) -> list[str]:
        with self._lock:
            return sorted({uri for _s, _l, uris in self._sessions.values() for uri in uris})

    def changed(self) -> list[str]:
        """Announce every subscribed URI whose content changed; returns those URIs."""
        now = self._fingerprints(self.subscribed())
        announced: set[str] = set()
        with self._lock:
            for key, (session, loop, uris) in list(self._sessions.items()):
                for uri, before in uris.items():
                    if now.get(uri, before) == before:
                        continue
                    uris[uri] = now[uri]
                    announced.add(uri)
                    try:
                        asyncio.run_coroutine_threadsafe(self._announce(key, session, uri),
                                                         loop)
                    except RuntimeError:  # its loop is closed: the session is gone
                        del self._sessions[key]
                        break
        return sorted(announced)

    async def _announce(self, client: object, session: Any, uri: str) -> None:
        try:
            await session.send_resource_updated(uri)
        except Exception as exc:  # the client is gone: forget its subscriptions
            logger.info("`%s` was not announced: %s", uri, exc)
            with self._lock:
                self._sessions.pop(client, None)

    def _fingerprints(self, uris: list[str]) -> dict[str, str | None]:
        try:
            files = {f.uri: f.path for f in self._files()}
        except Exception as exc:  # no agent to read (a failed build): nothing changed
            logger.warning("skills were not compared: %s", exc)
            return {}
        found: dict[str, str | None] = {}
        for uri in uris:
            path = files.get(uri)
            try:
                found[uri] = hashlib.sha256(path.read_bytes()).hexdigest() if path else None
            except OSError:
                found[uri] = None
        return found


def derive_client(session: Any, request: Any) -> object:
    """Who is asking: the `mcp-session-id` of a streamable HTTP request (each request
    there may carry a session object of its own), else the session itself (stdio)."""
    headers = getattr(request, "headers", None)
    found = headers.get("mcp-session-id") if headers is not None else None
    return found or id(session)


def complete_skill_names(files: list[SkillFile], template: str, value: str) -> list[str]:
    """`completion/complete` for the `skill://{name}` template: the skills' names."""
    if template != SKILL_TEMPLATE:
        return []
    return [f.name for f in files if f.uri == f"{SCHEME}{f.name}" and "/" not in f.name
            and f.name.startswith(value)]
