"""What `eve serve` keeps in the session store: the served agent's state (DESIGN.md 13).

    store = open_served_store(root)      # EVE_SESSION_STORE, else .eve/sessions.sqlite3
    states = served_states(store, root)  # the agent's define_state values, durable

The store is opened before the agent loads, so a store that cannot be used is a
diagnostic at start-up (`session/store-*`), not a failure of the first request.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from eve_build.consumer.app import try_find_app_root
from eve_build.runtime.loader import read_compiled_agent
from eve_build.session.states import StoreStates, derive_scope
from eve_build.session.store import SessionStore, open_session_store


def locate_app_root(root: Path) -> Path:
    """The app root at or above `root`, where `.eve/` is."""
    return try_find_app_root(root.resolve()) or root.resolve()


def open_served_store(root: Path, environ: Mapping[str, str] | None = None) -> SessionStore:
    """The store the served agent of `root` keeps its state in (raises DiagnosticsError)."""
    return open_session_store(locate_app_root(root), environ=environ)


def served_states(store: SessionStore, root: Path,
                  environ: Mapping[str, str] | None = None) -> StoreStates:
    """The served agent's state mapping: its scope in `store` (`serve/<agent folder>`)."""
    compiled = read_compiled_agent(root)
    return StoreStates(store.state_scope(derive_scope(compiled.agent_dir, environ)))
