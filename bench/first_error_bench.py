"""Time `eve run` with no model configured until its diagnostic (issue 28, target <= 0.3 s).

    python bench/first_error_bench.py [--repeat 15]

Builds, in a temporary folder, an agent with one instruction file and no model, then
runs `eve run hello` there as a user does (a fresh process, `EVE_MODEL` unset, stderr
a pipe) --repeat times, and `eve --version` as the floor of any `eve` process. Prints the
median and best wall time and the median CPU time (user + system of the child) of each,
with the machine, its load and the date, as a markdown table for docs/benchmarks.md.
Bytecode is cached as for a user (`PYTHONDONTWRITEBYTECODE` is dropped for the runs, and
a first run writes the caches). The machine is shared: the CPU time is the steadier number
when the load is high.
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

EVE = [sys.executable, "-m", "eve_build"]


def measure(argv: list[str], cwd: Path, env: dict[str, str], repeat: int
            ) -> tuple[float, float, float, int]:
    """(median wall, best wall, median CPU, exit code) of `argv` run `repeat` times."""
    walls: list[float] = []
    cpus: list[float] = []
    code = 0
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, check=False,
                              timeout=120)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        code = done.returncode
    return statistics.median(walls), min(walls), statistics.median(cpus), code


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if k != "EVE_MODEL"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as users run it: bytecode cached
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "app"
        (root / "agent").mkdir(parents=True)
        (root / "pyproject.toml").write_text('[project]\nname = "bench-agent"\n'
                                             'version = "0.1.0"\n')
        (root / "agent" / "instructions.md").write_text("You are a test agent.\n")
        env["EVE_HOME"] = str(Path(folder) / "home")
        subprocess.run([*EVE, "build", "-q"], cwd=root, env=env, check=True,
                       capture_output=True)
        for argv in ([*EVE, "--version"], [*EVE, "run", "hello"]):  # write the caches
            subprocess.run(argv, cwd=root, env=env, capture_output=True, check=False)
        rows = [("`eve --version` (the floor)", [*EVE, "--version"]),
                ("`eve run hello`, no model anywhere", [*EVE, "run", "hello"])]
        print(f"{datetime.date.today()}, {platform.machine()} {platform.system()}, "
              f"{os.cpu_count()} cores, Python {platform.python_version()}, "
              f"load {os.getloadavg()[0]:.1f} at the start")
        print()
        print("| command | median wall (s) | best wall (s) | median CPU (s) | exit |")
        print("|---|---:|---:|---:|---:|")
        for label, argv in rows:
            wall, best, cpu, code = measure(argv, root, env, args.repeat)
            print(f"| {label} | {wall:.3f} | {best:.3f} | {cpu:.3f} | {code} |")
        print()
        print(f"load {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
