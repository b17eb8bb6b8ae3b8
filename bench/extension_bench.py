"""Time `eve extension build` on generated extensions of 10, 100 and 1000 tools.

    python bench/extension_bench.py [--sizes 10 100 1000] [--repeat 3]

Each size is generated into a temporary folder; the command is run as a user
would (a fresh `eve` process, wall time, best of --repeat), and the in-process
core call is timed too. Prints a markdown table for docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from generated import write_extension


def generate_extension(root: Path, tools: int) -> Path:
    return write_extension(root, f"bench-{tools}", tools)


def time_cli(root: Path, repeat: int) -> float:
    eve = Path(sys.executable).parent / "eve"
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run([str(eve), "extension", "build", "--path", str(root)], check=True,
                       capture_output=True)
        best = min(best, time.perf_counter() - start)
    return best


def time_core(root: Path, repeat: int) -> float:
    code = (
        "import sys, time; from pathlib import Path; "
        "from eve_build.extension.build import build_extension; "
        "t = time.perf_counter(); build_extension(Path(sys.argv[1])); "
        "print(time.perf_counter() - t)"
    )
    runs = [
        float(subprocess.run([sys.executable, "-c", code, str(root)], check=True,
                             capture_output=True, text=True).stdout)
        for _ in range(repeat)
    ]
    return min(runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 100, 1000])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="eve-bench-"))
    try:
        print("| tools | `eve extension build` wall (s) | core build_extension (s) "
              "| per tool (ms) |")
        print("|---:|---:|---:|---:|")
        for size in args.sizes:
            root = generate_extension(workdir / f"ext-{size}", size)
            wall = time_cli(root, args.repeat)
            core = time_core(root, args.repeat)
            print(f"| {size} | {wall:.3f} | {core:.3f} | {1000 * core / size:.2f} |")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
