"""The layers hold (docs/architecture.md): the import-linter contracts in pyproject.toml,
no import cycle between siblings at any level, and a runtime that stands without the
build side."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from collections import defaultdict
from pathlib import Path

import grimp
import pytest

from tests.conftest import FIXTURES, REPO, copy_fixture_tree

BIN = Path(sys.executable).parent
BUILD_SIDE = ("engine", "output", "consumer", "add", "hatch", "scaffold", "extension")


def _contracts() -> list[dict[str, object]]:
    settings = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    contracts: list[dict[str, object]] = settings["tool"]["importlinter"]["contracts"]
    return contracts


def _graph() -> grimp.ImportGraph:
    return grimp.build_graph("eve_build", exclude_type_checking_imports=True, cache_dir=None)


def _child(module: str, package: str) -> str:
    return f"{package}.{module[len(package) + 1:].split('.')[0]}"


def _strongly_connected(nodes: list[str], edges: dict[str, set[str]]) -> list[list[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(edges[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            found.append(sorted(component))

    for node in nodes:
        if node not in index:
            visit(node)
    return found


def find_sibling_cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """Every set of siblings (children of one package, each with its descendants) that
    import each other round a loop, at every level of the package."""
    cycles = []
    for package in sorted(m for m in graph.modules if graph.find_children(m)):
        children = sorted(graph.find_children(package))
        edges: dict[str, set[str]] = defaultdict(set)
        for child in children:
            for module in {child} | graph.find_descendants(child):
                for imported in graph.find_modules_directly_imported_by(module):
                    if imported.startswith(package + "."):
                        owner = _child(imported, package)
                        if owner != child:
                            edges[child].add(owner)
        cycles += [c for c in _strongly_connected(children, edges) if len(c) > 1]
    return cycles


def test_lint_imports_keeps_every_contract() -> None:
    done = subprocess.run([BIN / "lint-imports", "--no-cache"], cwd=REPO, capture_output=True,
                          text=True, check=False, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


def test_no_import_cycle_between_siblings_at_any_level() -> None:
    assert find_sibling_cycles(_graph()) == []


def test_the_cycle_count_sees_a_cycle_between_siblings() -> None:
    graph = _graph()
    graph.add_import(importer="eve_build.session.store", imported="eve_build.session.sqlite")

    [cycle] = find_sibling_cycles(graph)
    assert {"eve_build.session.sqlite", "eve_build.session.store"} <= set(cycle)


def test_the_known_debt_is_only_what_the_contract_lists() -> None:
    # the contract lists no ignored import: a new one would be a debt taken on, and an
    # import that goes away leaves a stale entry that lint-imports reports
    for contract in _contracts():
        assert "ignore_imports" not in contract, contract["id"]


PROBE = """
import json, sys
from pathlib import Path
from eve_build.runtime import load_agent
with load_agent(Path(sys.argv[1])) as agent:
    result = agent.call_tool("gizmo__spin", {}, approver=lambda request: True)
print(json.dumps({"status": result.status, "value": result.value,
                  "modules": sorted(m for m in sys.modules if m.startswith("eve_build."))}))
"""


@pytest.fixture(scope="module")
def built_demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("layers")
    copy_fixture_tree(FIXTURES / "extensions", root / "extensions")
    demo = copy_fixture_tree(FIXTURES / "demo", root / "demo")
    done = subprocess.run([BIN / "eve", "build", "--path", str(demo)], capture_output=True,
                          text=True, check=False, timeout=600)
    assert done.returncode == 0, done.stderr
    return demo


def _load_and_call(demo: Path) -> tuple[dict[str, object], list[str]]:
    done = subprocess.run([sys.executable, "-c", PROBE, str(demo)], capture_output=True,
                          text=True, check=False, timeout=600, cwd=demo)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout.splitlines()[-1])
    built = [m for m in answer["modules"] if m.split(".")[1] in BUILD_SIDE]  # type: ignore[union-attr]
    return answer, built


def test_loading_and_calling_imports_nothing_of_the_build_side(built_demo: Path) -> None:
    # the load-time upgrade check (eve_build/runtime/upgrades.py) included: it reads the
    # compiled agent, the manifests and the freshness records through formats/
    answer, built = _load_and_call(built_demo)

    assert (answer["status"], answer["value"]) == ("ok", {"spins": 1})
    assert "eve_build.runtime.upgrades" in answer["modules"]  # type: ignore[operator]
    assert built == []
