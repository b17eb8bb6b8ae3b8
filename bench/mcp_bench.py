"""Time a tool call through `eve mcp` (stdio, the SDK's client) against the same call
made directly on the host.

    python bench/mcp_bench.py [--calls 300] [--repeat 3]

Builds runtime_bench's agent without hooks (one sync tool `tool__echo`), then times,
per call:

- `Agent.acall_tool` (the host `eve call` uses, no protocol);
- the SDK's `Client` against `create_mcp_server` in the same process (the protocol
  layers without a process boundary);
- the SDK's `Client` against `eve mcp` as a subprocess over stdio (what a desktop
  client gets), after the session is up (start-up is timed separately).

Each row is measured --repeat times and the run with the lowest median is kept.
Prints a markdown table (median and mean µs per call) and the machine.
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
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters
from runtime_bench import make_app

from eve_build.mcp.server import create_mcp_server
from eve_build.runtime import load_agent

ARGS = {"text": "hi"}


async def timed(call: Callable[[], Awaitable[Any]], calls: int) -> list[float]:
    samples = []
    for _ in range(calls):
        start = time.perf_counter()
        await call()
        samples.append(time.perf_counter() - start)
    return samples


async def best_of(call: Callable[[], Awaitable[Any]], calls: int, repeat: int) -> list[float]:
    await timed(call, 20)  # warm up
    runs = [await timed(call, calls) for _ in range(repeat)]
    return min(runs, key=statistics.median)


async def measure(app: Path, calls: int, repeat: int,
                  ) -> tuple[list[tuple[str, list[float]]], float]:
    rows = []
    with load_agent(app) as agent:
        async def direct() -> None:
            assert (await agent.acall_tool("tool__echo", ARGS)).ok

        rows.append(("`Agent.acall_tool` (direct)", await best_of(direct, calls, repeat)))
        async with Client(create_mcp_server(agent, app), mode="legacy") as client:
            async def in_process() -> None:
                assert not (await client.call_tool("tool__echo", ARGS)).is_error

            rows.append(("SDK client -> MCP server, in process",
                         await best_of(in_process, calls, repeat)))
    command = [sys.executable, "-c", "from eve_build.cli import main; main()", "mcp",
               "--path", str(app)]
    started = time.perf_counter()
    async with Client(StdioServerParameters(command=command[0], args=command[1:])) as client:
        first = await client.call_tool("tool__echo", ARGS)
        startup = time.perf_counter() - started
        assert not first.is_error

        async def stdio() -> None:
            assert not (await client.call_tool("tool__echo", ARGS)).is_error

        rows.append(("SDK client -> `eve mcp` subprocess, stdio",
                     await best_of(stdio, calls, repeat)))
    return rows, startup


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="eve-mcp-bench-") as scratch:
        app = make_app(Path(scratch), 0, False)
        rows, startup = asyncio.run(measure(app, options.calls, options.repeat))
    print(f"Machine: {os.cpu_count()} CPUs, {platform.system()} {platform.release()}, "
          f"{platform.python_implementation()} {platform.python_version()}, "
          f"{datetime.date.today().isoformat()}; {options.calls} calls per run, best of "
          f"{options.repeat} runs\n")
    print("| path | median µs per call | mean µs per call |")
    print("|---|---:|---:|")
    for label, samples in rows:
        print(f"| {label} | {statistics.median(samples) * 1e6:.0f} | "
              f"{statistics.fmean(samples) * 1e6:.0f} |")
    print(f"\n`eve mcp` start-up (launch, load, handshake, first call): {startup:.2f} s")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
