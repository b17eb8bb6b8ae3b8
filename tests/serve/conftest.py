"""A compiled serve agent, built once per session (copying and building it is the slow part)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.runtime.apps import compile_app, make_app, mount_file
from tests.serve.apps import make_served_app, write_version


@pytest.fixture(scope="session")
def served_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_served_app(tmp_path_factory.mktemp("serve") / "app")


@pytest.fixture
def dev_root(tmp_path: Path) -> Path:
    root = make_app(tmp_path / "app", ["gizmo"], {"extensions/gizmo.py": mount_file("gizmo")})
    write_version(root, "one")
    compile_app(root)
    return root
