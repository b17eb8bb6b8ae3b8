"""Time the command line's fixed costs: start-up, help, and the conventions layer.

    python bench/cli_bench.py [--repeat 5]

Each row is a fresh `eve` process as a user runs it (wall time, best of --repeat):
`--version` and `-h` (typer, no core import), a failing `extension build` (the rich
error path on stderr) and `extension build --json` of the gizmo fixture (envelope and
JSON on stdout). Prints a markdown table for docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def time_command(argv: list[str], cwd: Path, repeat: int) -> float:
    eve = Path(sys.executable).parent / "eve"
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run([str(eve), *argv], cwd=cwd, capture_output=True, check=False,
                       timeout=120)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        shutil.copytree(REPO / "fixtures" / "extensions" / "gizmo", work / "gizmo",
                        ignore=shutil.ignore_patterns("build", "dist"))
        (work / "empty").mkdir()
        rows = [
            ("`eve --version`", ["--version"]),
            ("`eve -h`", ["-h"]),
            ("`eve extension build -h`", ["extension", "build", "-h"]),
            ("`eve extension build` (fails: no pyproject)", ["extension", "build", "--path",
                                                             str(work / "empty")]),
            ("`eve extension build --json` (gizmo)", ["extension", "build", "--json", "--path",
                                                      str(work / "gizmo")]),
        ]
        print("| command | wall (s), best of", args.repeat, "|")
        print("|---|---:|")
        for label, argv in rows:
            print(f"| {label} | {time_command(argv, work, args.repeat):.3f} |")


if __name__ == "__main__":
    main()
