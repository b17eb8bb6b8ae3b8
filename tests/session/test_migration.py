"""The schema version table: an older store is migrated in place, a newer one refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from eve_build.errors import DiagnosticsError
from eve_build.session import schema
from eve_build.session.stores import open_session_store
from tests.session.turns import make_turn


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite://{tmp_path / 'migrated.sqlite3'}"
    return str(request.getfixturevalue("postgres_url"))


def _version(store_url: str, tmp_path: Path) -> list[tuple[object, ...]]:
    store = open_session_store(tmp_path, url=store_url)
    with store.db.transaction(write=False) as ex:  # type: ignore[attr-defined]
        rows = ex.execute("SELECT version FROM eve_schema")
    store.close()
    return rows


def test_an_older_store_is_migrated_and_then_refused_by_the_older_eve_build(
        store_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with monkeypatch.context() as patched:  # the eve-build of version 1 (no claims table)
        patched.setattr(schema, "SCHEMA_VERSION", 1)
        patched.setattr(schema, "MIGRATIONS", {})
        store = open_session_store(tmp_path, url=store_url)
        row = store.create_session()
        store.commit_turn(row.id, make_turn(1))
        store.close()
        assert _version(store_url, tmp_path) == [(1,)]

    current = open_session_store(tmp_path, url=store_url)  # migrated to this version
    claim = current.session_claims().claim(row.id, "host:1", 30.0)
    assert claim is not None and claim.turns == 1
    current.close()
    assert _version(store_url, tmp_path) == [(schema.SCHEMA_VERSION,)]

    newer_version = schema.SCHEMA_VERSION + 1
    with monkeypatch.context() as patched:  # a newer eve-build with one more migration
        patched.setattr(schema, "SCHEMA_VERSION", newer_version)
        patched.setattr(schema, "MIGRATIONS", {**schema.MIGRATIONS, newer_version - 1: (
            "CREATE TABLE eve_notes (id TEXT PRIMARY KEY, body TEXT NOT NULL)",)})
        assert _version(store_url, tmp_path) == [(newer_version,)]
        newer = open_session_store(tmp_path, url=store_url)
        with newer.db.transaction(write=True) as ex:  # type: ignore[attr-defined]
            ex.execute("INSERT INTO eve_notes (id, body) VALUES ('a', 'kept')")
        record = newer.read_session(row.id)
        newer.close()
        assert record is not None and record.row.turns == 1  # data kept across migration

    with pytest.raises(DiagnosticsError) as caught:  # this (older) eve-build again
        open_session_store(tmp_path, url=store_url)
    found = caught.value.diagnostics[0]
    assert found.code == "session/store-too-new"
    assert f"schema version {newer_version}" in found.message
    assert f"up to {schema.SCHEMA_VERSION}" in found.message
