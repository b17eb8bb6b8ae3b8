"""Time `eve extension build` cold, after a one-tool edit and with nothing changed.

    python bench/engine_bench.py [--sizes 10 100 1000] [--repeat 3] [--twin]

For each size an extension of N tools is generated (bench/generated.py). Each case
runs a fresh `eve extension build` process as a user would and reports the best wall
time of --repeat runs, the CPU time (user + system, every process of the build) of
that run, and for the cold build the peak memory: the sum of the proportional set sizes
(PSS: a page shared by n processes counts 1/n in each) of the build process and its
workers, sampled every 20 ms (the sampling itself costs CPU).

  cold       no output and no cache (`build/` removed)
  edited     one tool module changed since the last build
  unchanged  nothing changed since the last build

`--checks` (with the largest size) also times each check issue 23 added (hard links,
the stamp's walk, output guards, PEP 508 dependencies, output hashes, JSON defaults;
bench/check_costs.py) in-process by CPU time, and prints their sum as a share of the
cold build's CPU time, which a loaded machine changes less than wall time.

`--twin` also builds the same tools with the TypeScript eve 0.80.1 installed by
../shared/reference-eve.sh (the `EVE_REFERENCE` environment variable may name another
install script) and prints the ratios reference / eve-build.

Every run also measures the floor (bench/floor.py: the same tool modules imported and
their input schemas built with plain Python and pydantic, no eve-build code), serially
and on all cores, and prints eve-build's cold wall time as a ratio to the faster of the
two. The load average (`os.getloadavg`) is printed before each size.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from generated import edit_one_tool, twin_node_modules, write_extension, write_ts_extension

REFERENCE = next((p / "shared" / "reference-eve.sh" for p in Path(__file__).resolve().parents
                  if (p / "shared" / "reference-eve.sh").is_file()), Path("reference-eve.sh"))
CASES = ("cold", "edited", "unchanged")


@dataclass
class Run:
    wall: float
    cpu: float
    peak_mb: float


def _tree_rss_kb(pid: int) -> int:
    """Memory of `pid` and all its descendants, in KiB (Linux /proc): the proportional set
    size, so pages a forked worker shares with its parent are counted once in total."""
    total, stack = 0, [pid]
    while stack:
        current = stack.pop()
        try:
            status = Path(f"/proc/{current}/smaps_rollup").read_text()
            match = re.search(r"^Pss:\s+(\d+)", status, re.MULTILINE)
            total += int(match.group(1)) if match else 0
            for task in Path(f"/proc/{current}/task").iterdir():
                children = (task / "children").read_text().split()
                stack.extend(int(child) for child in children)
        except (OSError, ValueError):
            continue
    return total


def run_once(argv: list[str], cwd: Path, env: dict[str, str]) -> Run:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with tempfile.TemporaryFile() as log:  # a file, not a pipe: a chatty build cannot block
        start = time.perf_counter()
        process = subprocess.Popen(argv, cwd=cwd, env=env, stdout=log, stderr=log)
        peak = 0
        while process.poll() is None:
            peak = max(peak, _tree_rss_kb(process.pid))
            time.sleep(0.02)
        wall = time.perf_counter() - start
        log.seek(0)
        errors = log.read().decode(errors="replace")[-4000:]
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed in {cwd}:\n{errors}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Run(wall, cpu, peak / 1024)


def measure(argv: list[str], root: Path, source: Path, suffix: str, outputs: list[Path],
            repeat: int, env: dict[str, str]) -> dict[str, Run]:
    results: dict[str, Run] = {}
    for case in CASES:
        best: Run | None = None
        for _ in range(repeat):
            if case == "cold":
                for output in outputs:
                    shutil.rmtree(output, ignore_errors=True)
                for cached in source.rglob("__pycache__"):  # the author's code really cold
                    shutil.rmtree(cached, ignore_errors=True)
            elif case == "edited":
                edit_one_tool(source, suffix)
            run = run_once(argv, root, env)
            best = run if best is None or run.wall < best.wall else best
        assert best is not None
        results[case] = best
    return results


def measure_floor(root: Path, repeat: int, env: dict[str, str]) -> dict[int, Run]:
    """bench/floor.py on `root`'s tools, serially and on every core: best of `repeat`."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
    floor = str(Path(__file__).resolve().parent / "floor.py")
    found: dict[int, Run] = {}
    for jobs in sorted({1, cores}):
        runs = [run_once([sys.executable, floor, str(root), "--jobs", str(jobs)], root, env)
                for _ in range(repeat)]
        found[jobs] = min(runs, key=lambda run: run.wall)
    return found


def reference_path() -> str | None:
    script = Path(os.environ.get("EVE_REFERENCE", REFERENCE))
    if not script.is_file():
        return None
    done = subprocess.run(["bash", str(script)], capture_output=True, text=True, check=False)
    match = re.search(r'export PATH="([^"]*)\$PATH"', done.stdout)
    return match.group(1) if done.returncode == 0 and match else None


def report_checks(root: Path, size: int, cold: Run, edited: Run) -> None:
    """Each issue-23 check's CPU time, and the sum of those a build runs vs the cold build."""
    from check_costs import measure_checks

    costs = measure_checks(root, size)
    in_build = sum(v for k, v in costs.items() if not k.startswith("pack only"))
    print(f"\n| check ({size} tools) | CPU (ms) |\n|---|---:|", file=sys.stderr)
    for name, seconds in costs.items():
        print(f"| {name} | {seconds * 1000:.2f} |", file=sys.stderr)
    print(f"| **sum in a build** | **{in_build * 1000:.2f}** |\n\ncold build CPU "
          f"{cold.cpu:.2f} s (wall {cold.wall:.2f} s): the checks are "
          f"{100 * in_build / cold.cpu:.2f}% of its CPU time; of the rebuild after a one-tool "
          f"edit ({edited.cpu:.2f} s CPU), {100 * in_build / edited.cpu:.2f}%\n",
          file=sys.stderr, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 100, 1000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--twin", action="store_true", help="also run the TypeScript eve")
    parser.add_argument("--checks", action="store_true",
                        help="also time the issue-23 checks against the cold build")
    args = parser.parse_args()
    eve = str(Path(sys.executable).parent / "eve")
    env = {**os.environ}
    env.pop("EVE_CACHE_DIR", None)
    # as on a user's machine, Python caches bytecode (some sandboxes and CI images set
    # this, which makes every run compile eve-build and the generated tools again)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    twin_path = reference_path() if args.twin else None
    if args.twin and twin_path is None:
        print("twin mode: the reference eve could not be installed; Python only\n")
    workdir = Path(tempfile.mkdtemp(prefix="eve-engine-bench-"))
    rows: list[str] = []
    try:
        for size in args.sizes:
            root = write_extension(workdir / f"py-{size}", f"bench-{size}", size)
            print(f"load average before {size} tools: "
                  + " ".join(f"{v:.2f}" for v in os.getloadavg()), file=sys.stderr, flush=True)
            floors = measure_floor(root, args.repeat, env)
            ours = measure([eve, "extension", "build"], root, root / "extension", ".py",
                           [root / "build"], args.repeat, env)
            theirs: dict[str, Run] = {}
            if twin_path is not None:
                node_modules = twin_node_modules(Path(twin_path.split(":")[1]).parent,
                                                 workdir / f"modules-{size}", twin_path)
                ts = write_ts_extension(workdir / f"ts-{size}", f"bench-{size}", size,
                                        node_modules)
                ts_env = {**env, "PATH": f"{twin_path}{env.get('PATH', '')}"}
                theirs = measure(["eve", "extension", "build"], ts, ts / "extension", ".ts",
                                 [ts / "dist"], args.repeat, ts_env)
            if args.checks and size == max(args.sizes):
                report_checks(root, size, ours["cold"], ours["edited"])
            for case in CASES:
                mine = ours[case]
                row = (f"| {size} | {case} | {mine.wall:.2f} | {mine.cpu:.2f} | "
                       + (f"{mine.peak_mb:.0f}" if case == "cold" else "-"))
                if theirs:
                    other = theirs[case]
                    row += (f" | {other.wall:.2f} | {other.cpu:.2f} | "
                            + (f"{other.peak_mb:.0f}" if case == "cold" else "-")
                            + f" | {other.wall / mine.wall:.1f}x |")
                else:
                    row += " |"
                if case == "cold":
                    best = min(floors.values(), key=lambda run: run.wall)
                    row += (" " + " / ".join(f"{r.wall:.2f} ({r.cpu:.2f})"
                                            for r in floors.values())
                            + f" | {mine.wall / best.wall:.2f}x |")
                else:
                    row += " - | - |"
                rows.append(row)
                print(row, file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    header = "| tools | case | eve-build wall (s) | CPU (s) | peak MB (PSS, all processes)"
    rule = "|---:|---|---:|---:|---:"
    if twin_path is not None:
        header += " | eve 0.80.1 wall (s) | CPU (s) | peak MB | ratio (wall) |"
        rule += "|---:|---:|---:|---:|"
    else:
        header += " |"
        rule += "|"
    header += " floor wall (CPU), serial / all cores (s) | eve-build / floor |"
    rule += "---:|---:|"
    print(header)
    print(rule)
    print("\n".join(rows))


if __name__ == "__main__":
    main()
