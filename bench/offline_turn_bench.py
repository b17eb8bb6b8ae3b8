"""One offline turn with 20 tools, whole processes: `eve run --model test` against a bare
pydantic-ai Agent with the same 20 tools (issue 28, target ratio <= 1.1x).

    python bench/offline_turn_bench.py [--repeat 9] [--tools 20]

Builds, in a temporary folder, an agent with --tools tools `tool_NN` (a pydantic input
of one text field; the tool echoes it) and writes `bare.py`: a pydantic-ai Agent with
the same tools as plain functions and TestModel, which calls every tool once and then
answers, as `--model test` does. Each run is a fresh process as a user starts it
(interpreter, imports, the agent loaded, the turn, for eve the session committed to
`.eve/sessions.sqlite3`); bare and eve runs alternate, so a busy machine slows both alike.
Prints the median wall and CPU time (user + system of the child) of each and their
ratios, with the machine, its load and the date, for docs/benchmarks.md.

`eve run` holds the garbage collector while it starts and freezes what starting made
(eve_build.startup); a bare script does not. So a third process, `bare_held.py`, is the
bare agent with the same two lines, and the last ratio (eve over it) is eve's own cost
with the collector set aside: imports, the compiled agent, the hook pipeline, the
session store.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TOOL = '''from pydantic import BaseModel

from eve_build.sdk import define_tool


class Input(BaseModel):
    text: str


def run(input: Input, ctx: object) -> dict[str, str]:
    return {{"text": input.text, "tool": "{name}"}}


tool = define_tool(description="Echo the text ({name}).", input=Input, execute=run)
'''
BARE = '''from pydantic import BaseModel
from pydantic_ai import Agent
from pydantic_ai.models.test import TestModel


class Input(BaseModel):
    text: str


def make(name: str):
    def run(input: Input) -> dict[str, str]:
        return {{"text": input.text, "tool": name}}

    run.__name__ = name
    run.__doc__ = f"Echo the text ({{name}})."
    return run


agent = Agent(TestModel(), instructions="You are a test agent.",
              tools=[make(f"tool_{{i:02d}}") for i in range({count})])
result = agent.run_sync("hello")
print(result.output)
'''
HELD = '''import gc

gc.disable()  # as eve_build.startup.hold_collection
{bare_head}
gc.freeze()  # as eve_build.startup.release_collection, once the agent is made
gc.enable()
{bare_tail}'''


def run_once(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True,
                          check=False, timeout=300)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{argv} failed:\n{done.stderr}")
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--tools", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "app"
        (root / "agent" / "tools").mkdir(parents=True)
        (root / "pyproject.toml").write_text('[project]\nname = "bench-agent"\n'
                                             'version = "0.1.0"\n')
        (root / "agent" / "instructions.md").write_text("You are a test agent.\n")
        for i in range(args.tools):
            name = f"tool_{i:02d}"
            (root / "agent" / "tools" / f"{name}.py").write_text(TOOL.format(name=name))
        bare = BARE.format(count=args.tools)
        head, tail = bare.split("result = ")
        (root / "bare.py").write_text(bare)
        (root / "bare_held.py").write_text(HELD.format(bare_head=head.rstrip("\n"),
                                                      bare_tail="result = " + tail))
        env = {**os.environ, "EVE_HOME": str(Path(folder) / "home")}
        env.pop("EVE_MODEL", None)
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # as users run it: bytecode cached
        subprocess.run([sys.executable, "-m", "eve_build", "build", "-q"], cwd=root, env=env,
                       check=True, capture_output=True)
        commands = {"bare": [sys.executable, "bare.py"],
                    "held": [sys.executable, "bare_held.py"],
                    "eve": [sys.executable, "-m", "eve_build", "run", "hello", "--model",
                            "test"]}
        for argv in commands.values():  # warm the bytecode caches of both
            run_once(argv, root, env)
        times: dict[str, list[tuple[float, float]]] = {label: [] for label in commands}
        load = os.getloadavg()[0]
        for _ in range(args.repeat):
            for label, argv in commands.items():
                times[label].append(run_once(argv, root, env))
        wall = {k: statistics.median(t[0] for t in v) for k, v in times.items()}
        cpu = {k: statistics.median(t[1] for t in v) for k, v in times.items()}
        print(f"{datetime.date.today()}, {platform.machine()} {platform.system()}, "
              f"{os.cpu_count()} cores, Python {platform.python_version()}, load "
              f"{load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end; "
              f"{args.tools} tools, median of {args.repeat}")
        print()
        print("| process | median wall (s) | median CPU (s) |")
        print("|---|---:|---:|")
        for label, name in NAMES.items():
            print(f"| {name} | {wall[label]:.3f} | {cpu[label]:.3f} |")
        for over in ("bare", "held"):
            print(f"| ratio eve / {over} | {wall['eve'] / wall[over]:.2f}x | "
                  f"{cpu['eve'] / cpu[over]:.2f}x |")


NAMES = {"bare": "bare pydantic-ai Agent, TestModel",
         "held": "the same, collector held while starting (`bare_held.py`)",
         "eve": "`eve run hello --model test`"}


if __name__ == "__main__":
    main()
