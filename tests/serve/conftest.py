"""A compiled serve agent, built once per session (copying and building it is the slow part)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.serve.apps import make_served_app


@pytest.fixture(scope="session")
def served_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_served_app(tmp_path_factory.mktemp("serve") / "app")
