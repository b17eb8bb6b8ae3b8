"""Fixture apps copied to tmp_path, with the fixture extensions they mount as workspace members."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from eve_build.consumer.build import build_agent
from eve_build.errors import DiagnosticsError
from eve_build.formats.compiled import COMPILED_PATH, CompiledAgent, CompiledTree
from tests.conftest import FIXTURES, copy_fixture_tree

MakeApp = Callable[..., Path]


@pytest.fixture
def make_app(tmp_path: Path) -> MakeApp:
    """Copy `fixtures/apps/<name>` to tmp_path; copy each named fixture extension into
    its `packages/` (the workspace members)."""

    def make(name: str, *extensions: str) -> Path:
        root = tmp_path / name
        copy_fixture_tree(FIXTURES / "apps" / name, root)
        for extension in extensions:
            copy_fixture_tree(FIXTURES / "extensions" / extension, root / "packages" / extension)
        return root

    return make


def build_errors(root: Path, agent: str | None = None) -> list[str]:
    """Build, expecting failure: each error diagnostic rendered."""
    with pytest.raises(DiagnosticsError) as caught:
        build_agent(root, agent)
    return [d.render() for d in caught.value.diagnostics if d.is_error]


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def compiled_json(root: Path) -> dict[str, Any]:
    data = read_json(root / COMPILED_PATH)
    assert isinstance(data, dict)
    return data


def names(items: list[Any]) -> list[str]:
    return [item.name for item in items]


def find_tree(compiled: CompiledAgent, path: str) -> CompiledTree:
    def walk(tree: CompiledTree) -> list[CompiledTree]:
        return [tree, *(t for sub in tree.subagents for t in walk(sub))]

    return next(t for t in walk(compiled.root) if t.path == path)
