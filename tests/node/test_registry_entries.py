"""Names and paths from `nodes.json` are checked on every read (issue 23 item 6).

A registry is a file any process of the user can write. A name like `a/../../x`
would build socket, pid and log paths outside `run/` and `logs/`, so every bad entry
is left out with a warning, and the good ones keep working.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from eve_build.node.lifecycle import StartReport, add_node, list_nodes_checked, plan_add
from eve_build.node.registry import read_registry, read_registry_checked
from eve_build.node.scan import scan_nodes

Run = Callable[[str, str], StartReport]
BAD_NAMES = ["a/../../x", "../../../somewhere/evil", "", "A B", "ünï", "a\nb", "a__b",
             ".hidden", "x" * 100, "\x1b[2J"]


def _write(home: Path, nodes: dict[str, object]) -> None:
    (home / "nodes.json").write_text(json.dumps({"formatVersion": 1, "nodes": nodes}))


def _eve(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "eve_build", *args], capture_output=True,
                          text=True, timeout=60, env={**os.environ, "EVE_HOME": str(home)})


def test_bad_names_and_paths_are_left_out_and_the_good_node_still_loads(
        home: Path, run_node: Run, tmp_path: Path) -> None:
    report = run_node("echo-node", "echo")
    good = read_registry(home)["echo"]
    # what `a/../../x` would reach: files beside `run/` that must not be touched
    (home / "run" / "a").mkdir()
    victims = [home / "x.sock", home / "x.pid"]
    for victim in victims:
        victim.write_text("user data")
    entries: dict[str, object] = {name: {"path": str(tmp_path)} for name in BAD_NAMES}
    entries.update({"relative": {"path": "some/where"}, "nul": {"path": "/tmp/a\x00b"},
                    "no-path": {}, "not-a-dict": ["x"], "echo": {"path": str(good.path)}})
    _write(home, entries)
    registry, problems = read_registry_checked(home)
    assert list(registry) == ["echo"]
    assert len(problems) == len(BAD_NAMES) + 4
    assert {p.code for p in problems} == {"node/registry-entry-invalid"}
    assert all(p.file == str(home / "nodes.json") and "eve node add" in p.hint for p in problems)
    messages = "\n".join(p.message for p in problems)
    assert "'a/../../x'" in messages and "'../../../somewhere/evil'" in messages
    assert "'x" + "x" * 79 + "' (+20 characters)" in messages  # quoted, not whole
    assert "\x1b" not in messages and "'\\x1b[2J'" in messages
    rows, listed = list_nodes_checked(home)
    assert [row["name"] for row in rows] == ["echo"] and rows[0]["pid"] == report.pid
    assert len(listed) == len(problems)
    nodes, scanned = scan_nodes(home)
    assert [(n.name, n.status) for n in nodes] == [("echo", "loaded")]
    assert len(scanned) == len(problems)
    assert all(victim.read_text() == "user data" for victim in victims)
    assert not any(home.parent.glob("somewhere"))
    # the CLI lists the good node and says which entries were left out
    done = _eve(home, "ext", "list")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("echo  running")
    assert "warning node/registry-entry-invalid: the node 'a/../../x'" in done.stderr
    assert "Traceback" not in done.stderr
    # the next write keeps the good entry and drops the bad ones
    add_node(home, plan_add(home, good.path, "echo2"))
    assert sorted(json.loads((home / "nodes.json").read_text())["nodes"]) == ["echo", "echo2"]


def test_a_deeply_nested_registry_is_a_diagnostic(home: Path) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    (home / "nodes.json").write_text('{"formatVersion": 1, "nodes": ' + deep + "}")
    nodes, problems = scan_nodes(home)
    assert nodes == [] and [p.code for p in problems] == ["node/registry-invalid"]
    assert "nested too deeply" in problems[0].message
    done = _eve(home, "ext", "list")
    assert done.returncode == 1
    assert "nested too deeply to be a node registry" in done.stderr
    assert "Traceback" not in done.stderr and "RecursionError" not in done.stderr
