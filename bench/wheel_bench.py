"""Time the `eve` build hook: a wheel of the fixture extension with and without it.

    python bench/wheel_bench.py [--repeat 5]

Two projects ship the same files:

- "hook": fixtures/extensions/acme-crm as is; the hatchling hook `eve` runs the
  eve build and ships `build/eve/acme_crm/`;
- "plain": the generated `acme_crm/` copied to the project root and packaged by
  hatchling alone (`packages = ["acme_crm"]`), no hook, no eve build.

Each is built with `python -m build --wheel --no-isolation` (a fresh frontend and
backend process each time, as a user runs it), and, to see the hook without the
process start-ups, with hatchling's WheelBuilder in one process (the first build
pays the imports, later ones do not). Prints a markdown table for docs/publishing.md.
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
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "fixtures" / "extensions" / "acme-crm"
PLAIN_PYPROJECT = """[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"

[project]
name = "acme-crm"
version = "0.3.0"
description = "{description}"
readme = "README.md"
requires-python = ">=3.11"
dependencies = ["eve-build", "pydantic>=2", "packaging>=23"]

[tool.hatch.build.targets.wheel]
packages = ["acme_crm"]
"""
IN_PROCESS = """
import sys, time
from hatchling.builders.wheel import WheelBuilder
root, out, repeat = sys.argv[1], sys.argv[2], int(sys.argv[3])
for _ in range(repeat):
    start = time.perf_counter()
    list(WheelBuilder(root).build(directory=out, versions=["standard"]))
    print(time.perf_counter() - start)
"""


def make_projects(scratch: Path) -> tuple[Path, Path]:
    hooked = scratch / "hook" / "acme-crm"
    shutil.copytree(FIXTURE, hooked)
    subprocess.run([sys.executable, "-m", "eve_build", "extension", "build", "--path",
                    str(hooked)], check=True, capture_output=True)
    plain = scratch / "plain" / "acme-crm"
    plain.mkdir(parents=True)
    shutil.copytree(hooked / "build" / "eve" / "acme_crm", plain / "acme_crm")
    shutil.copy(hooked / "README.md", plain / "README.md")
    description = tomllib.loads((FIXTURE / "pyproject.toml").read_text())["project"]["description"]
    (plain / "pyproject.toml").write_text(PLAIN_PYPROJECT.format(description=description))
    shutil.rmtree(hooked / "build")
    return hooked, plain


def time_frontend(project: Path, outdir: Path, repeat: int) -> list[float]:
    env = {**os.environ, "SOURCE_DATE_EPOCH": "1700000000"}
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir",
                        str(outdir), str(project)], check=True, capture_output=True, env=env)
        times.append(time.perf_counter() - start)
    return times


def time_in_process(project: Path, outdir: Path, repeat: int) -> list[float]:
    completed = subprocess.run(
        [sys.executable, "-c", IN_PROCESS, str(project), str(outdir), str(repeat)],
        check=True, capture_output=True, text=True,
    )
    return [float(line) for line in completed.stdout.split()]


def count_members(outdir: Path) -> int:
    import zipfile

    (wheel,) = outdir.glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        return len(archive.namelist())


LOAD = " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="eve-wheel-bench-") as raw:
        scratch = Path(raw)
        hooked, plain = make_projects(scratch)
        rows = []
        for label, project in (("plain hatchling", plain), ("with the `eve` hook", hooked)):
            outdir = scratch / f"out-{project.parent.name}"
            wall = time_frontend(project, outdir, args.repeat)
            inproc = time_in_process(project, scratch / f"in-{project.parent.name}", args.repeat)
            rows.append((label, wall, inproc, count_members(outdir)))
    print(f"Machine: {os.cpu_count()} CPUs (nproc), {platform.machine()}, "
          f"{platform.system()} {platform.release()}, Python {platform.python_version()}, "
          f"{datetime.date.today().isoformat()}; --repeat {args.repeat}\n")
    print("| wheel | members | `python -m build --wheel --no-isolation` median (s) | best (s) "
          "| in-process first build (s) | in-process later builds, median (s) |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, wall, inproc, members in rows:
        later = statistics.median(inproc[1:]) if len(inproc) > 1 else inproc[0]
        print(f"| {label} | {members} | {statistics.median(wall):.3f} | {min(wall):.3f} "
              f"| {inproc[0]:.3f} | {later:.3f} |")
    median = statistics.median(rows[1][1]) - statistics.median(rows[0][1])
    best = min(rows[1][1]) - min(rows[0][1])
    print(f"\nHook overhead per `python -m build --wheel`: {median:.3f} s (medians), "
          f"{best:.3f} s (bests); target: under 0.3 s (issue 13). Load average before: {LOAD}")


if __name__ == "__main__":
    main()
