"""Where the host gets its local extensions from: the default sources and the layer.

`derive_local_sources(explicit)` is the one list of sources every command uses;
another kind of local extension (project nodes, section 8) is one more entry here.
"""

from __future__ import annotations

from collections.abc import MutableMapping, Sequence
from pathlib import Path
from typing import Any

from eve_build.local.context import LocalSession
from eve_build.local.discovery import locate_eve_home
from eve_build.local.layer import LocalLayer
from eve_build.local.record import LoadRequest, LocalSource
from eve_build.local.scripts import ScriptSource
from eve_build.runtime.workers import WorkerPool

LOCAL_BUDGET = 5.0
"""Seconds a local extension's import plus `setup` may take (DESIGN section 7)."""


def derive_local_sources(explicit: Sequence[Path] = ()) -> list[LocalSource]:
    """The sources in load order: scripts (`-e`, project, global), then running nodes."""
    from eve_build.local.node_source import NodeSource  # imported when nodes are asked for

    return [ScriptSource(tuple(explicit)), NodeSource()]


def open_local_layer(project_root: Path, states: MutableMapping[str, Any], pool: WorkerPool,
                     sources: Sequence[LocalSource], *, budget: float = LOCAL_BUDGET,
                     eve_home: Path | None = None,
                     session: LocalSession | None = None) -> LocalLayer:
    """A layer not loaded yet: the Agent applies it over its root surface."""
    request = LoadRequest(project_root=project_root, eve_home=eve_home or locate_eve_home(),
                          states=states, session=session or LocalSession(), pool=pool,
                          budget=budget)
    return LocalLayer(sources, request)
