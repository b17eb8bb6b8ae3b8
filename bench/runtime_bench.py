"""Time the runtime host's overhead per tool call, with hooks from 10 extensions.

    python bench/runtime_bench.py [--calls 2000] [--extensions 10] [--repeat 3]

Generates, in a temporary folder, a uv workspace with an agent and its extensions:
`bench-tool` (one sync tool `echo`, no hooks) and N `bench-hook-<i>` packages whose
one hook handles `action.call` and `action.result` and proceeds. Builds it with
`eve build` (`build_agent`), loads it with `load_agent`, then times `call_tool`
(sync, each call on the agent's loop) and `acall_tool` (awaited in one loop) for:

- no hooks (only the tool's mount);
- N extensions with sync handlers (each runs on a worker thread, under a budget);
- N extensions with async handlers (each runs as a task, under a budget).

Each row is measured --repeat times and the run with the lowest median is kept
(the machine is shared: the best run is the least disturbed one). Prints a
markdown table of microseconds per call (median and mean) and the machine.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

from generated import PYPROJECT

from eve_build.consumer.build import build_agent
from eve_build.extension.build import build_extension
from eve_build.runtime import Agent, load_agent

WORKSPACE = """[project]
name = "bench-agent"
version = "0.1.0"

[tool.uv.workspace]
members = ["packages/*"]
"""
EXTENSION = "from eve_build.sdk import define_extension\n\nextension = define_extension()\n"
TOOL = '''from pydantic import BaseModel
from eve_build.sdk import define_tool


class Input(BaseModel):
    text: str


def run(input: Input, ctx: object) -> dict[str, str]:
    return {"text": input.text}


tool = define_tool(description="Echo.", input=Input, execute=run)
'''
HOOK = '''from eve_build.sdk import define_hook


{prefix}def on_call(event, ctx):
    return None


{prefix}def on_result(event, ctx):
    return None


hook = define_hook(events={{"action.call": on_call, "action.result": on_result}})
'''


def generate(root: Path, name: str, files: dict[str, str]) -> Path:
    package = root / name
    (package / "extension").mkdir(parents=True)
    (package / "pyproject.toml").write_text(PYPROJECT.format(name=name))
    (package / "extension" / "extension.py").write_text(EXTENSION)
    for relative, text in files.items():
        (package / "extension" / relative).parent.mkdir(parents=True, exist_ok=True)
        (package / "extension" / relative).write_text(text)
    return package


def make_app(root: Path, hooks: int, asynchronous: bool) -> Path:
    app = root / f"app-{'async' if asynchronous else 'sync'}-{hooks}"
    packages = app / "packages"
    sources = [("tool", generate(packages, "bench-tool", {"tools/echo.py": TOOL}))]
    hook = HOOK.format(prefix="async " if asynchronous else "")
    sources += [(f"hook{index}", generate(packages, f"bench-hook-{index}",
                                          {"hooks/noop.py": hook})) for index in range(hooks)]
    (app / "pyproject.toml").write_text(WORKSPACE)
    (app / "agent" / "extensions").mkdir(parents=True)
    (app / "agent" / "instructions.md").write_text("Benchmark agent.\n")
    for namespace, package in sources:
        factory = build_extension(package).project.import_name  # current: eve build skips it
        (app / "agent" / "extensions" / f"{namespace}.py").write_text(
            f"from {factory} import {factory}\n\nmount = {factory}()\n")
    build_agent(app)
    return app


def time_sync(agent: Agent, calls: int) -> list[float]:
    samples = []
    for _ in range(calls):
        start = time.perf_counter()
        result = agent.call_tool("tool__echo", {"text": "hi"})
        samples.append(time.perf_counter() - start)
        assert result.ok, result.error
    return samples


def time_async(agent: Agent, calls: int) -> list[float]:
    async def loop() -> list[float]:
        samples = []
        for _ in range(calls):
            start = time.perf_counter()
            result = await agent.acall_tool("tool__echo", {"text": "hi"})
            samples.append(time.perf_counter() - start)
            assert result.ok, result.error
        return samples

    return asyncio.run(loop())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--extensions", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="eve-runtime-bench-") as scratch:
        cases = [("no hooks", 0, False),
                 (f"{options.extensions} extensions, sync handlers", options.extensions, False),
                 (f"{options.extensions} extensions, async handlers", options.extensions, True)]
        for label, hooks, asynchronous in cases:
            app = make_app(Path(scratch), hooks, asynchronous)
            with load_agent(app) as agent:
                for mode, timer in (("call_tool", time_sync), ("acall_tool", time_async)):
                    timer(agent, 50)  # warm up: imports, first threads
                    runs = [timer(agent, options.calls) for _ in range(options.repeat)]
                    best = min(runs, key=statistics.median)
                    rows.append((label, mode, 2 * hooks, statistics.median(best),
                                 statistics.fmean(best)))
    print(f"Machine: {os.cpu_count()} CPUs, {platform.system()} {platform.release()}, "
          f"{platform.python_implementation()} {platform.python_version()}, "
          f"{datetime.date.today().isoformat()}; {options.calls} calls per run, best of "
          f"{options.repeat} runs\n")
    print("| hooks | call | handler runs per call | median µs per call | mean µs per call |")
    print("|---|---|---:|---:|---:|")
    for label, mode, runs, median, mean in rows:
        print(f"| {label} | `{mode}` | {runs} | {median * 1e6:.0f} | {mean * 1e6:.0f} |")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
