"""One local extension as the host sees it, and the seam its contributions come through.

A *source* turns some place on this machine into `LocalExtension` records: the
script source (`eve_build.local.scripts`) imports `.py` files and calls their
`setup(ctx)`; a node source (section 8) would ask running processes over a socket and
give proxies. The host (`eve_build.local.host`) takes the records of every source in
order and does the rest the same way for all: shadowing, collisions, tools, commands,
hooks, observers and listing.
"""

from __future__ import annotations

from collections.abc import Callable, MutableMapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

from eve_build.diagnostics import Diagnostic
from eve_build.local.context import LocalSession
from eve_build.runtime.workers import WorkerPool
from eve_build.sdk.binding import Binding
from eve_build.sdk.definitions import Tool
from eve_build.sdk.local import Command, LocalContext, Spec

Origin = Literal["mount", "explicit", "project", "global", "node"]
Status = Literal["loaded", "dropped", "untrusted", "shadowed", "stopped"]
ORIGINS: tuple[str, ...] = ("mount", "explicit", "project", "global", "node")
STATUSES: tuple[str, ...] = ("loaded", "dropped", "untrusted", "shadowed", "stopped")
LOCAL_STATE_PREFIX = "local"
"""State of a local extension is scoped to `local/<name>` (DESIGN section 7)."""


@dataclass
class LocalExtension:
    """A local extension and what it contributes once the host placed it.

    A source fills `name`, `origin`, `path`, `status`, `spec`, `context`, `binding`,
    `diagnostics` (and `running` for processes). The host then fills `tools`,
    `commands`, `guidelines`, `hooks` and `events` with what survived the checks and
    collisions, and may add diagnostics or change the status to `shadowed`.
    """

    name: str
    origin: str
    path: str  # shown to the user: the file or folder
    status: str = "loaded"
    spec: Spec | None = None
    context: LocalContext | None = None
    binding: Binding | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    running: bool | None = None  # None: not a process (scripts); a node says True or False
    tools: dict[str, Tool] = field(default_factory=dict)
    commands: dict[str, Command] = field(default_factory=dict)
    guidelines: list[str] = field(default_factory=list)
    hooks: dict[str, Callable[..., Any]] = field(default_factory=dict)  # intercepting
    events: dict[str, Callable[..., Any]] = field(default_factory=dict)  # by event name

    @property
    def loaded(self) -> bool:
        return self.status == "loaded"


@dataclass
class LoadRequest:
    """What a source gets to load with: where, the shared state and the host's budget."""

    project_root: Path
    eve_home: Path
    states: MutableMapping[str, Any]
    session: LocalSession  # notices, queued messages and entries, shared across reloads
    pool: WorkerPool
    budget: float = 5.0


class LocalSource(Protocol):
    """A place local extensions come from (scripts on disk, nodes over sockets...)."""

    def load(self, request: LoadRequest) -> list[LocalExtension]:
        """The records, in load order; a failing extension is a `dropped` record."""
        ...

    def close(self) -> None:
        """Forget what was loaded (modules, connections) before a reload or at the end."""
        ...


def derive_binding(name: str, states: MutableMapping[str, Any]) -> Binding:
    """The binding a local extension's code runs under: state keys `local/<name>:<state>`."""
    return Binding(None, None, f"{LOCAL_STATE_PREFIX}/{name}", None, states)
