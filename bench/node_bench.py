"""Time what a project extension (node) costs: a tool call, and `eve ext start`.

    python bench/node_bench.py [--calls 2000] [--repeat 3] [--starts 5]

1. The same `echo` tool (the `extension.py` below: one sync tool, no hooks) called
   through `agent.call_tool`, once loaded in process as a script (`-e extension.py`)
   and once served by a running node. The difference is what the node adds per call:
   a request and a reply on the Unix socket, and the node's own argument validation.
   The node is started with this interpreter, because the call path is the same
   whatever venv the node runs in.
2. `eve ext start` (the real console script, a fresh process as a user runs it) of an
   installed node: fixtures/nodes/humanize-node with its venv made and installed once
   before timing, so each timed start creates and installs nothing. It is stopped
   between runs.

Each timing is repeated --repeat times and the best (least disturbed) run is kept.
Prints markdown tables and the machine.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from eve_build.consumer.build import build_agent
from eve_build.node.lifecycle import add_node, plan_add, start_node, stop_node
from eve_build.runtime import Agent, load_agent

REPO = Path(__file__).resolve().parent.parent
NODES = REPO / "fixtures" / "nodes"
EXTENSION = '''from pydantic import BaseModel

from eve_build.sdk import Spec, define_tool


class EchoInput(BaseModel):
    text: str


def setup(ctx):
    return Spec(tools={"echo": define_tool(description="Echo.", input=EchoInput,
                                           execute=lambda input, ctx: {"echo": input.text})})
'''
APP_PYPROJECT = '[project]\nname = "bench-node-agent"\nversion = "0.1.0"\n'


def make_app(root: Path) -> Path:
    (root / "agent").mkdir(parents=True)
    (root / "pyproject.toml").write_text(APP_PYPROJECT)
    (root / "agent" / "instructions.md").write_text("You are a bench agent.\n")
    build_agent(root)
    return root


def time_calls(agent: Agent, calls: int, repeat: int) -> float:
    """Best median of `repeat` runs, in microseconds per call."""
    best = float("inf")
    for _ in range(repeat):
        samples = []
        for _ in range(calls):
            started = time.perf_counter()
            result = agent.call_tool("echo", {"text": "hi"})
            samples.append(time.perf_counter() - started)
            assert result.status == "ok", result.error
        best = min(best, statistics.median(samples))
    return best * 1e6


def bench_calls(work: Path, calls: int, repeat: int) -> tuple[float, float]:
    app = make_app(work / "app")
    project = Path(shutil.copytree(NODES / "echo-node", work / "echo-node"))
    (project / "extension.py").write_text(EXTENSION)
    with load_agent(app, extensions=[project / "extension.py"]) as agent:
        in_process = time_calls(agent, calls, repeat)
    home = Path(os.environ["EVE_HOME"])
    add_node(home, plan_add(home, project, "echo"))
    start_node(home, "echo", python=Path(sys.executable))
    try:
        with load_agent(app) as agent:
            node = time_calls(agent, calls, repeat)
    finally:
        stop_node(home, "echo")
    return in_process, node


def bench_start(work: Path, starts: int) -> tuple[float, float]:
    project = Path(shutil.copytree(NODES / "humanize-node", work / "sizes"))
    eve = str(Path(sys.executable).parent / "eve")
    subprocess.run([eve, "ext", "add", str(project), "--yes"], check=True, timeout=60,
                   capture_output=True)
    installed = time.perf_counter()
    subprocess.run([eve, "ext", "start", "sizes"], check=True, timeout=900, capture_output=True)
    install_seconds = time.perf_counter() - installed
    subprocess.run([eve, "ext", "stop", "sizes"], check=True, timeout=60, capture_output=True)
    samples = []
    for _ in range(starts):
        started = time.perf_counter()
        subprocess.run([eve, "ext", "start", "sizes"], check=True, timeout=60,
                       capture_output=True)
        samples.append(time.perf_counter() - started)
        subprocess.run([eve, "ext", "stop", "sizes"], check=True, timeout=60,
                       capture_output=True)
    return install_seconds, min(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--starts", type=int, default=5)
    options = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="eve-bench-"))  # short: socket paths < 108 bytes
    os.environ["EVE_HOME"] = str(home)
    with tempfile.TemporaryDirectory(prefix="eve-node-bench-") as scratch:
        work = Path(scratch)
        in_process, node = bench_calls(work, options.calls, options.repeat)
        install, start = bench_start(work, options.starts)
    shutil.rmtree(home, ignore_errors=True)
    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"CPython {platform.python_version()}, {datetime.date.today()}\n")
    print("| `echo` via `agent.call_tool` | median per call (µs) |")
    print("|---|---:|")
    print(f"| in process (script, `-e`) | {in_process:.0f} |")
    print(f"| through a node (Unix socket) | {node:.0f} |")
    print(f"| **added by the node** | **{node - in_process:.0f}** |\n")
    print("| `eve ext start sizes` | wall (s) |")
    print("|---|---:|")
    print(f"| first start: create .venv, install eve-build + humanize | {install:.2f} |")
    print(f"| installed node (best of {options.starts}) | {start:.3f} |")


if __name__ == "__main__":
    main()
