"""`load_agent` / `open_agent`: the runtime core, composed with the local extensions and
the connections' tools.

    agent = load_agent(Path("my-agent"))          # reads the compiled agent
    agent = open_agent(compiled, Path("my-agent")) # from a model in memory

The core (`eve_build.runtime.loader.open_compiled_agent`) opens the mounts and binds
the definitions; it asks this module's openers for the local layer (when local
extensions are asked for) and for the connections' tools (when the agent has
connections). Both are imported only then, as before the move.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from eve_build.formats.compiled import CompiledAgent
from eve_build.project.app import try_find_app_root
from eve_build.runtime.agent import Agent
from eve_build.runtime.loader import HOOK_BUDGET, open_compiled_agent, read_compiled_agent
from eve_build.runtime.workers import WorkerPool
from eve_build.sdk.mount import Mount

if TYPE_CHECKING:
    from eve_build.connections.tools import ConnectionTools
    from eve_build.local.context import LocalSession
    from eve_build.local.layer import LocalLayer
    from eve_build.local.record import LocalSource


def load_agent(
    app_root: Path, *, environ: Mapping[str, str] | None = None,
    hook_budget: float = HOOK_BUDGET, snapshot: Mapping[str, Any] | None = None,
    local: bool = True, extensions: Sequence[Path] = (),
    states: MutableMapping[str, Any] | None = None, local_session: LocalSession | None = None,
) -> Agent:
    """Load the agent `eve build` compiled in `app_root` (raises DiagnosticsError).

    With `local` (the default), the local extensions load too: `extensions` (`-e`),
    then `<app_root>/.eve/extensions/` when trusted, then `$EVE_HOME/extensions/`.

    `app_root` may be any folder inside the app: the root is found upward, like git.
    `states` holds every state value (default: a dict in memory; `eve serve` passes the
    session store's, eve_build.session.states), `local_session` the local extensions'
    notices and entries (default: a new one in memory).
    """
    app_root = try_find_app_root(app_root.resolve()) or app_root
    return open_agent(read_compiled_agent(app_root), app_root, environ=environ,
                      hook_budget=hook_budget, snapshot=snapshot, local=local,
                      extensions=extensions, states=states, local_session=local_session)


def open_agent(
    compiled: CompiledAgent, app_root: Path, *, environ: Mapping[str, str] | None = None,
    hook_budget: float = HOOK_BUDGET, snapshot: Mapping[str, Any] | None = None,
    mounts: Mapping[str, Mount] | None = None, pool: WorkerPool | None = None,
    local: bool = False, extensions: Sequence[Path] = (),
    local_sources: Sequence[LocalSource] | None = None,
    states: MutableMapping[str, Any] | None = None, local_session: LocalSession | None = None,
) -> Agent:
    """Load a compiled agent; `mounts` (by mount path) stand in for mount files.

    `local` loads the local extensions (from `local_sources`, by default
    `derive_local_sources(extensions)`); a failing one is dropped, never fatal.
    """

    def open_layer(root: Path, values: MutableMapping[str, Any],
                   workers: WorkerPool) -> LocalLayer:
        from eve_build.local.context import LocalSession
        from eve_build.local.load import derive_local_sources, open_local_layer

        # restored first, so `setup(ctx)` sees its entries; a served agent's session
        # keeps its entries in the store (eve_build.session.states.StoreEntries)
        session = local_session if local_session is not None else LocalSession()
        if snapshot is not None:
            session.restore(snapshot.get("local", {}))
        return open_local_layer(root, values, workers,
                                derive_local_sources(extensions) if local_sources is None
                                else local_sources, session=session)

    return open_compiled_agent(
        compiled, app_root, environ=environ, hook_budget=hook_budget, snapshot=snapshot,
        mounts=mounts, pool=pool, states=states,
        open_layer=open_layer if local or local_sources is not None else None,
        open_connections=_open_connections)


def _open_connections(agent: Agent, environ: Mapping[str, str]) -> ConnectionTools:
    from eve_build.connections.tools import ConnectionTools

    return ConnectionTools(agent, environ)
