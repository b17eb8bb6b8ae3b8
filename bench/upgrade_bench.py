"""Time what upgrade safety adds to loading an agent, and the freshness check.

    python bench/upgrade_bench.py [--mounts 10] [--rounds 50] [--repeat 3]

Generates, in a temporary folder, a uv workspace with an agent that mounts N small
source-backed extensions (`bench-ext-<i>`, one tool each) and builds it with
`eve build`. Then times, per round:

- `find_changed_packages`: the check `load_agent` runs before importing anything
  (locate each package, read its manifest, hash it; for a source-backed one also
  the freshness check of its source), for all N mounts;
- the same with the mounts marked as installed (not source-backed): the cost an
  agent with wheels from PyPI pays;
- `is_up_to_date` of one extension project (discover, hash every source file and its
  output copy).

Each row is measured --repeat times and the best median is kept. Prints a markdown
table of milliseconds per round and the machine.
"""

from __future__ import annotations

import argparse
import datetime
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from generated import PYPROJECT

from eve_build.consumer.build import build_agent
from eve_build.consumer.freshness import is_up_to_date
from eve_build.extension.build import build_extension, locate_extension_project
from eve_build.formats.compiled import walk_trees
from eve_build.runtime.upgrades import find_changed_packages

WORKSPACE = """[project]
name = "bench-agent"
version = "0.1.0"

[tool.uv.workspace]
members = ["packages/*"]
"""
EXTENSION = "from eve_build.sdk import define_extension\n\nextension = define_extension()\n"
TOOL = '''from pydantic import BaseModel
from eve_build.sdk import define_tool


class EchoInput(BaseModel):
    text: str = ""


tool = define_tool(description="Echo the text back.", input=EchoInput,
                   execute=lambda input, ctx: {"text": input.text})
'''


def make_workspace(root: Path, mounts: int) -> Path:
    (root / "pyproject.toml").write_text(WORKSPACE)
    (root / "agent" / "extensions").mkdir(parents=True)
    (root / "agent" / "instructions.md").write_text("Benchmark agent.\n")
    for index in range(mounts):
        name = f"bench-ext-{index}"
        package = root / "packages" / name
        (package / "extension" / "tools").mkdir(parents=True)
        (package / "pyproject.toml").write_text(PYPROJECT.format(name=name))
        (package / "extension" / "extension.py").write_text(EXTENSION)
        (package / "extension" / "tools" / "echo.py").write_text(TOOL)
        build_extension(package)
        module = name.replace("-", "_")
        (root / "agent" / "extensions" / f"e{index}.py").write_text(
            f"from {module} import {module}\n\nmount = {module}()\n")
    return root


def best_median(action: Callable[[], object], rounds: int, repeat: int) -> float:
    medians = []
    for _ in range(repeat):
        times = []
        for _ in range(rounds):
            started = time.perf_counter()
            action()
            times.append(time.perf_counter() - started)
        medians.append(statistics.median(times))
    return min(medians) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mounts", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="eve-upgrade-bench-") as folder:
        root = make_workspace(Path(folder), options.mounts)
        compiled = build_agent(root).compiled
        mounts = [m for tree in walk_trees(compiled.root) for m in tree.mounts]
        paths = [str(root / entry) for entry in compiled.sys_path] + sys.path
        installed = [m.model_copy(update={"source_backed": False}) for m in mounts]
        project = locate_extension_project(root / "packages" / "bench-ext-0")
        assert find_changed_packages(mounts, paths) == []
        rows = [
            (f"`find_changed_packages`, {len(mounts)} source-backed mounts",
             best_median(lambda: find_changed_packages(mounts, paths), options.rounds,
                         options.repeat)),
            (f"`find_changed_packages`, {len(mounts)} installed mounts",
             best_median(lambda: find_changed_packages(installed, paths), options.rounds,
                         options.repeat)),
            ("`is_up_to_date`, one extension",
             best_median(lambda: is_up_to_date(project), options.rounds, options.repeat)),
        ]
    print("| check | median ms per round |")
    print("|---|---:|")
    for label, value in rows:
        print(f"| {label} | {value:.2f} |")
    print(f"\n{platform.processor() or platform.machine()}, CPython "
          f"{platform.python_version()}, {datetime.date.today()}")


if __name__ == "__main__":
    main()
