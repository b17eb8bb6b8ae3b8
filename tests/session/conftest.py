"""The counter agent, compiled once per session, and a real PostgreSQL server."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.session.apps import make_counter_app
from tests.session.postgres_server import PostgresServer, find_bin_dir, running_postgres


@pytest.fixture(scope="session")
def counter_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_counter_app(tmp_path_factory.mktemp("counter") / "app")


@pytest.fixture(scope="session")
def other_counter_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same counter agent as another project (`[project] name = "other-agent"`)."""
    return make_counter_app(tmp_path_factory.mktemp("other") / "app", project="other-agent")


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """One real PostgreSQL server for the whole test session (skipped, saying why, only
    where the machine has no PostgreSQL binaries; `.ci/run` installs them)."""
    bin_dir = find_bin_dir()
    if bin_dir is None:
        pytest.skip("no PostgreSQL server binaries (initdb, pg_ctl, postgres) on PATH or in "
                    "/usr/lib/postgresql/*/bin: install the `postgresql` package")
    with running_postgres(bin_dir) as server:
        yield server


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> Iterator[str]:
    """A fresh, empty database on the test server, dropped afterwards."""
    name = f"eve_{uuid.uuid4().hex[:12]}"
    yield postgres_server.create_database(name)
    postgres_server.drop_database(name)
