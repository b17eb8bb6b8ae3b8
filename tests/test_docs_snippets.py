"""Every snippet in docs/ (and the README) marked runnable (```python runnable,
```console runnable) runs, from a copy of the repository's fixtures, and a console
snippet prints exactly the output shown under each `$` command."""

from __future__ import annotations

import ast
import builtins
import contextlib
import importlib
import importlib.metadata
import os
import re
import subprocess
import symtable
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.conftest import FIXTURES, REPO, copy_fixture_tree

FENCE = re.compile(r"^```(python|console) runnable\n(.*?)^```", re.MULTILINE | re.DOTALL)
PAGES = sorted([*(REPO / "docs").rglob("*.md"), REPO / "README.md"])


def _snippets() -> list[tuple[str, str, str]]:
    found = []
    for page in PAGES:
        for match in FENCE.finditer(page.read_text(encoding="utf-8")):
            line = page.read_text(encoding="utf-8")[: match.start()].count("\n") + 1
            found.append((f"{page.relative_to(REPO).as_posix()}:{line}", match[1], match[2]))
    return found


SNIPPETS = _snippets()


def _commands(text: str) -> list[tuple[str, str]]:
    """(command, expected output) for each `$ ` line of a console snippet."""
    pairs: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        if line.startswith("$ "):
            pairs.append((line[2:], []))
        elif pairs:
            pairs[-1][1].append(line)
    return [(command, "\n".join(lines)) for command, lines in pairs]


@pytest.fixture
def workdir(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    copy_fixture_tree(FIXTURES, tmp_path / "fixtures")
    env = {**os.environ, "EVE_HOME": str(tmp_path / "eve-home"), "NO_COLOR": "1",
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    return tmp_path, env


def test_some_snippets_are_marked_runnable() -> None:
    assert {kind for _, kind, _ in SNIPPETS} == {"python", "console"}


@pytest.mark.parametrize(("where", "kind", "text"), SNIPPETS, ids=[s[0] for s in SNIPPETS])
def test_snippet_runs(where: str, kind: str, text: str,
                      workdir: tuple[Path, dict[str, str]]) -> None:
    cwd, env = workdir
    if kind == "python":
        result = subprocess.run([sys.executable, "-c", text], cwd=cwd, env=env,
                                capture_output=True, text=True, timeout=120, check=False)
        assert result.returncode == 0, f"{where}\n{result.stderr}"
        return
    for command, expected in _commands(text):
        result = subprocess.run(["bash", "-c", command], cwd=cwd, env=env,
                                capture_output=True, text=True, timeout=120, check=False)
        assert "Traceback" not in result.stderr, f"{where}: {command}\n{result.stderr}"
        assert result.stdout.rstrip("\n") == expected, f"{where}: {command}\n{result.stderr}"


# Every other Python snippet is a file or a fragment a reader copies: it must compile,
# name nothing it does not define or import, import only what eve-build has, and use
# third-party packages that eve-build or one of its user-facing extras installs.
ANY_PYTHON = re.compile(r"^```python(?: runnable)?\n(.*?)^```", re.MULTILINE | re.DOTALL)
USER_EXTRAS = ("serve", "mcp", "agent", "postgres")  # not `test` / `dev`: users lack them


def _python_snippets() -> list[tuple[str, str]]:
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for match in ANY_PYTHON.finditer(text):
            line = text[: match.start()].count("\n") + 1
            found.append((f"{page.relative_to(REPO).as_posix()}:{line}", match[1]))
    return found


PYTHON_SNIPPETS = _python_snippets()


def _undefined_names(text: str, where: str) -> set[str]:
    table = symtable.symtable(text, where, "exec")
    bound = {s.get_name() for s in table.get_symbols()
             if s.is_assigned() or s.is_imported() or s.is_namespace()}

    def walk(scope: symtable.SymbolTable) -> set[str]:
        missing = {s.get_name() for s in scope.get_symbols()
                   if (s.is_global() or scope.get_type() == "module") and s.is_referenced()
                   and s.get_name() not in bound and not hasattr(builtins, s.get_name())}
        return missing.union(*(walk(child) for child in scope.get_children()))

    return walk(table)


def _installed_by_eve_build() -> set[str]:
    """Distributions eve-build's core dependencies and user extras name."""
    data = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    given = [*data["dependencies"],
             *(r for extra in USER_EXTRAS for r in data["optional-dependencies"].get(extra, []))]
    names = {canonicalize_name(Requirement(r).name) for r in given}
    for name in list(names):  # what those pull in counts too (pydantic -> pydantic_core)
        with contextlib.suppress(importlib.metadata.PackageNotFoundError):
            for required in importlib.metadata.requires(name) or []:
                if "extra ==" not in required:
                    names.add(canonicalize_name(Requirement(required).name))
    return names


def _imports(text: str) -> list[tuple[str, str | None]]:
    """(module, name) for each absolute import: `import x` -> (x, None)."""
    found: list[tuple[str, str | None]] = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.extend((node.module, alias.name) for alias in node.names)
        elif isinstance(node, ast.Import):
            found.extend((alias.name, None) for alias in node.names)
    return found


def test_every_page_closes_each_fence_it_opens() -> None:
    broken = []
    for page in PAGES:
        inside = False
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            if not line.lstrip().startswith("```"):
                continue
            if inside and line.strip() != "```":
                broken.append(f"{page.relative_to(REPO)}:{number}: {line.strip()!r} closes "
                              "a fence (a closing fence is a bare ```)")
            inside = not inside
        if inside:
            broken.append(f"{page.relative_to(REPO)}: a fence is never closed")
    assert broken == []


def test_no_page_cites_what_a_reader_of_this_repository_lacks() -> None:
    cited = re.compile(r"DESIGN(?:\.md)?\b|\bissue \d+|\bsection \d+ of the design")
    found = [f"{page.relative_to(REPO)}:{number}: {line.strip()}"
             for page in PAGES
             for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1)
             if cited.search(line)]
    assert found == []


@pytest.mark.parametrize(("where", "text"), PYTHON_SNIPPETS, ids=[s[0] for s in PYTHON_SNIPPETS])
def test_python_snippet_compiles_and_names_only_what_it_has(where: str, text: str) -> None:
    compile(text, where, "exec")
    assert _undefined_names(text, where) == set(), f"{where} uses names it never defines"
    distributions = importlib.metadata.packages_distributions()
    # a snippet of a project with packages of its own says so: `(dependencies: a, b, ...)`
    own = re.search(r"\(dependencies: ([\w, -]+?)(?:,? the [^)]*)?\)", text)
    installed = _installed_by_eve_build() | (
        {canonicalize_name(n.strip()) for n in own[1].split(",")} if own else set())
    for module, name in _imports(text):
        top = module.split(".")[0]
        if top == "eve_build":
            imported = importlib.import_module(module)
            if name is not None and not hasattr(imported, name):
                importlib.import_module(f"{module}.{name}")  # a submodule, or ImportError
        elif top not in sys.stdlib_module_names and top not in ("acme_crm", "gizmo"):
            owners = {canonicalize_name(d) for d in distributions.get(top, [top])}
            assert owners & installed, (f"{where}: `{module}` comes from {sorted(owners)}, "
                                        "which neither eve-build nor its extras install")


def test_every_python_snippet_is_checked() -> None:
    assert len(PYTHON_SNIPPETS) >= 25
