"""The counter agent, compiled once per session, and a real PostgreSQL server."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.session.apps import make_counter_app
from tests.session.postgres_server import PostgresServer, required_bin_dir, running_postgres


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
    where the machine has no PostgreSQL binaries; `.ci/run` installs them, and under CI
    their absence fails the tests instead)."""
    with running_postgres(required_bin_dir(os.environ)) as server:
        yield server


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> Iterator[str]:
    """A fresh, empty database on the test server, dropped afterwards."""
    name = f"eve_{uuid.uuid4().hex[:12]}"
    yield postgres_server.create_database(name)
    postgres_server.drop_database(name)
