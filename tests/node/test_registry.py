"""`nodes.json` and the checks of `eve ext add`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eve_build.errors import DiagnosticsError, EveBuildError
from eve_build.node.lifecycle import add_node, plan_add
from eve_build.node.registry import NodeEntry, read_registry, write_registry
from tests.conftest import FIXTURES


def test_an_absent_registry_is_empty(home: Path) -> None:
    assert read_registry(home) == {}


def test_registry_round_trips_sorted(home: Path, tmp_path: Path) -> None:
    write_registry(home, {"b": NodeEntry("b", tmp_path / "b"), "a": NodeEntry("a", tmp_path)})
    data = json.loads((home / "nodes.json").read_text())
    assert list(data["nodes"]) == ["a", "b"] and data["formatVersion"] == 1
    assert read_registry(home) == {"a": NodeEntry("a", tmp_path),
                                   "b": NodeEntry("b", tmp_path / "b")}
    assert [p.name for p in home.iterdir()] == ["nodes.json"]  # no staging file left


def test_a_broken_registry_says_how_to_fix_it(home: Path) -> None:
    (home / "nodes.json").write_text("{not json")
    with pytest.raises(EveBuildError, match="cannot be read") as info:
        read_registry(home)
    assert "eve node add" in info.value.hint


def test_add_takes_the_folder_name_and_an_absolute_path(home: Path) -> None:
    entry = plan_add(home, FIXTURES / "nodes" / "echo-node")
    assert entry == NodeEntry("echo-node", (FIXTURES / "nodes" / "echo-node").resolve())
    add_node(home, entry)
    assert read_registry(home)["echo-node"] == entry


@pytest.mark.parametrize(("path", "name", "code"), [
    ("extensions", None, "node/project-invalid"),
    ("nodes/echo-node", "Bad Name", "node/name-invalid"),
])
def test_add_refuses_bad_input(home: Path, path: str, name: str | None, code: str) -> None:
    with pytest.raises(DiagnosticsError) as info:
        plan_add(home, FIXTURES / path, name)
    assert [d.code for d in info.value.diagnostics] == [code]


def test_a_name_cannot_be_taken_twice(home: Path) -> None:
    add_node(home, plan_add(home, FIXTURES / "nodes" / "echo-node", "echo"))
    assert plan_add(home, FIXTURES / "nodes" / "echo-node", "echo").name == "echo"  # same path
    with pytest.raises(DiagnosticsError) as info:
        plan_add(home, FIXTURES / "nodes" / "humanize-node", "echo")
    assert info.value.diagnostics[0].code == "node/already-registered"
