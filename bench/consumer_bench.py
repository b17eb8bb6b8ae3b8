"""Time `eve build` of an agent with 1, 10 and 50 mounts of one 50-tool extension.

    python bench/consumer_bench.py [--mounts 1 10 50] [--tools 50] [--repeat 3]

Each size is generated into a temporary uv workspace: the extension is a workspace
member (source-backed), the agent mounts it N times (`agent/extensions/m000.py`, ...).
Timed in process with `time.perf_counter` (the interpreter is warmed up first):
- cold: a fresh copy, nothing built (the extension build + the agent compile);
- no-op: the same build again, nothing changed (the extension is skipped as up to
  date and compiled-agent.json is not rewritten).
Prints a markdown table.
"""

from __future__ import annotations

import argparse
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from generated import write_extension

WORKSPACE = """[project]
name = "bench-agent"
version = "0.1.0"
requires-python = ">=3.11"

[tool.uv.workspace]
members = ["packages/*"]

[tool.uv.sources]
bench-ext = { workspace = true }
"""
MOUNT = """from bench_ext import bench_ext
from eve_build.sdk import env

mount = bench_ext(greeting="Hi {index}", token=env("BENCH_TOKEN"))
"""


def generate(root: Path, mounts: int, tools: int) -> Path:
    (root / "packages").mkdir(parents=True)
    (root / "pyproject.toml").write_text(WORKSPACE)
    write_extension(root / "packages" / "bench-ext", "bench-ext", tools, "    token: str\n")
    agent = root / "agent"
    (agent / "extensions").mkdir(parents=True)
    (agent / "instructions.md").write_text("Benchmark agent.\n")
    for index in range(mounts):
        (agent / "extensions" / f"m{index:03d}.py").write_text(MOUNT.format(index=index))
    return root


def time_cli_noop(root: Path) -> float:
    """Wall time of a fresh `eve build` process when nothing changed."""
    eve = Path(sys.executable).parent / "eve"
    start = time.perf_counter()
    subprocess.run([str(eve), "build", "--path", str(root)], check=True, capture_output=True)
    return time.perf_counter() - start


def measure(mounts: int, tools: int, repeat: int) -> tuple[float, float, float, int]:
    from eve_build.consumer.build import build_agent

    cold = noop = wall = float("inf")
    count = 0
    for _ in range(repeat):
        with tempfile.TemporaryDirectory(prefix="eve-consumer-bench-") as folder:
            root = generate(Path(folder) / "app", mounts, tools)
            start = time.perf_counter()
            result = build_agent(root)
            cold = min(cold, time.perf_counter() - start)
            count = len(result.compiled.root.tools)
            start = time.perf_counter()
            again = build_agent(root)
            noop = min(noop, time.perf_counter() - start)
            assert [m.state for m in again.extensions] == ["up-to-date"] and not again.written
            wall = min(wall, time_cli_noop(root))
            shutil.rmtree(root)
    return cold, noop, wall, count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mounts", type=int, nargs="+", default=[1, 10, 50])
    parser.add_argument("--tools", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    measure(1, 2, 1)  # warm up: imports, pydantic schema machinery
    import os

    print(f"python {platform.python_version()}, {os.cpu_count()} cpus, "
          f"{time.strftime('%Y-%m-%d')}, best of {args.repeat}\n")
    print("| mounts | tools | cold build (s) | no-op build (s) | no-op per mount (ms) "
          "| no-op `eve build` wall (s) |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: |")
    for mounts in args.mounts:
        cold, noop, wall, count = measure(mounts, args.tools, args.repeat)
        print(f"| {mounts} | {count} | {cold:.3f} | {noop:.3f} | {1000 * noop / mounts:.1f} "
              f"| {wall:.3f} |")


if __name__ == "__main__":
    main()
