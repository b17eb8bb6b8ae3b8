"""What `eve serve` keeps in the session store: the served agent's state (DESIGN.md 13).

    store = open_served_store(root)      # EVE_SESSION_STORE, else .eve/sessions.sqlite3
    agent = load_agent(root, **served_states(store, root))  # state and entries, durable

The store is opened before the agent loads, so a store that cannot be used is a
diagnostic at start-up (`session/store-*`), not a failure of the first request.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from eve_build.serve.scope import LOCAL_SUFFIX, locate_app_root, served_scope
from eve_build.session.states import StoreEntries, StoreStates
from eve_build.session.store import DEFAULT_STORE, STORE_ENV, SessionStore
from eve_build.session.stores import open_session_store


def open_served_store(root: Path, environ: Mapping[str, str] | None = None) -> SessionStore:
    """The store the served agent of `root` keeps its state in (raises DiagnosticsError)."""
    return open_session_store(locate_app_root(root), environ=environ)


def served_states(store: SessionStore, root: Path,
                  environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """What `load_agent` takes to keep the served agent's state and its local extensions'
    entries in `store`: `states` and `local_session` (entries under `<scope>#local`)."""
    from eve_build.local.context import LocalSession

    scope = served_scope(store, root, environ)  # whose state (eve_build.serve.scope)
    entries = StoreEntries(store.state_scope(f"{scope}{LOCAL_SUFFIX}"))
    return {"states": StoreStates(store.state_scope(scope)),
            "local_session": LocalSession(entries=entries)}


def read_last_runs(root: Path, environ: Mapping[str, str] | None = None,
                   ) -> dict[str, dict[str, Any]]:
    """Each schedule's last recorded run (by `derive_run_name`), as JSON; {} when this app
    has no store yet (nothing is created just to list)."""
    env = os.environ if environ is None else environ
    if not env.get(STORE_ENV, "").strip() and \
            not (locate_app_root(root) / DEFAULT_STORE).exists():
        return {}
    store = open_served_store(root, environ)
    try:
        runs = store.schedule_runs(served_scope(store, root, environ, adopt=False)).last_runs()
    finally:
        store.close()
    return {name: run.to_json() for name, run in runs.items()}
