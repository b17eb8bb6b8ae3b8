"""Which store an app uses: `url`, else EVE_SESSION_STORE, else `.eve/sessions.sqlite3`.

Kept apart from `eve_build.session.store` (the interface both engines implement) so
that the store module imports neither engine.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from eve_build.session.store import DEFAULT_STORE, STORE_ENV, SessionStore


def open_session_store(project_root: Path, *, url: str | None = None,
                       environ: Mapping[str, str] | None = None) -> SessionStore:
    """The store of this app: `url`, else EVE_SESSION_STORE, else `.eve/sessions.sqlite3`.

    Creates or migrates the schema; raises DiagnosticsError (session/store-*) for a file
    that is not our database, a newer schema, or a server that cannot be reached."""
    from eve_build.session.problems import store_url_invalid

    env = os.environ if environ is None else environ
    given = url if url is not None else env.get(STORE_ENV, "").strip()
    if not given:
        return _open_sqlite(project_root / DEFAULT_STORE)
    scheme = given.split(":", 1)[0].lower() if "://" in given else ""
    if scheme in ("postgresql", "postgres"):
        from eve_build.session.postgres import open_postgres_store

        return open_postgres_store(given)
    if scheme == "sqlite":
        path = Path(given.split("://", 1)[1])
        return _open_sqlite(path if path.is_absolute() else project_root / path)
    if scheme:
        raise store_url_invalid(given)
    path = Path(given)
    return _open_sqlite(path if path.is_absolute() else project_root / path)


def _open_sqlite(path: Path) -> SessionStore:
    from eve_build.session.sqlite import open_sqlite_store

    return open_sqlite_store(path)
