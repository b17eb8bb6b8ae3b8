"""Time what N local single-file extensions add to `eve call`.

    python bench/local_bench.py [--extensions 50] [--repeat 9] [--processes 5]

Builds, in a temporary folder, an agent whose one tool `echo` does nothing, and an
`EVE_HOME` whose `extensions/` holds N scripts `ext-<i>.py`, each with a pydantic
tool, a command and a guideline. Then, for an empty `EVE_HOME` and for the full one:

- in process: `load_agent(app)` + `call_tool("echo")` + `close()`, --repeat times;
- as a user runs it: `eve call echo` in a fresh interpreter, --processes times.

Reports the median of each and the difference (what the local extensions add).
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from eve_build.consumer.build import build_agent
from eve_build.runtime import load_agent

TOOL = '''from pydantic import BaseModel
from eve_build.sdk import define_tool


class Input(BaseModel):
    text: str


tool = define_tool(description="Echo.", input=Input, execute=lambda input, ctx: input.text)
'''
SCRIPT = '''from pydantic import BaseModel

from eve_build.sdk import Spec, define_command, define_tool


class Input(BaseModel):
    text: str


def setup(ctx):
    return Spec(
        tools={{"tool_{index}": define_tool(description="Echo.", input=Input,
                                            execute=lambda input, c: input.text)}},
        commands={{"command-{index}": define_command(description="Hi.",
                                                     run=lambda args, c: "hi")}},
        guidelines=["Guideline {index}."],
    )
'''


def make_app(root: Path) -> Path:
    app = root / "app"
    (app / "agent" / "tools").mkdir(parents=True)
    (app / "pyproject.toml").write_text('[project]\nname = "bench-local"\nversion = "0.1.0"\n')
    (app / "agent" / "instructions.md").write_text("Benchmark agent.\n")
    (app / "agent" / "tools" / "echo.py").write_text(TOOL)
    build_agent(app)
    return app


def make_home(root: Path, count: int) -> Path:
    home = root / f"home-{count}"
    (home / "extensions").mkdir(parents=True)
    for index in range(count):
        (home / "extensions" / f"ext-{index:02d}.py").write_text(SCRIPT.format(index=index))
    return home


def time_in_process(app: Path, home: Path, repeat: int, expected: int) -> list[float]:
    os.environ["EVE_HOME"] = str(home)
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        with load_agent(app) as agent:
            assert agent.call_tool("echo", {"text": "hi"}).ok
            loaded = sum(r.loaded for r in agent.local_extensions)
        samples.append(time.perf_counter() - start)
        assert loaded == expected, loaded
    return samples


def time_processes(app: Path, home: Path, repeat: int) -> list[float]:
    env = {**os.environ, "EVE_HOME": str(home)}
    command = [sys.executable, "-c", "from eve_build.cli import main; main()", "call", "echo",
               '{"text": "hi"}', "--path", str(app)]
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True, env=env, timeout=120)
        samples.append(time.perf_counter() - start)
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--extensions", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--processes", type=int, default=5)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="eve-local-bench-") as scratch:
        root = Path(scratch)
        app = make_app(root)
        empty, full = make_home(root, 0), make_home(root, options.extensions)
        rows = []
        for label, home, expected in (("no local extensions", empty, 0),
                                      (f"{options.extensions} scripts", full,
                                       options.extensions)):
            inside = statistics.median(time_in_process(app, home, options.repeat, expected))
            outside = statistics.median(time_processes(app, home, options.processes))
            rows.append((label, inside, outside))
    print("| local extensions | in process (load + call + close) | `eve call` process |")
    print("|---|---:|---:|")
    for label, inside, outside in rows:
        print(f"| {label} | {inside:.3f} s | {outside:.3f} s |")
    print(f"| added | {rows[1][1] - rows[0][1]:.3f} s | {rows[1][2] - rows[0][2]:.3f} s |")
    print(f"\n{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"CPython {platform.python_version()}, {datetime.date.today()}")


if __name__ == "__main__":
    main()
