"""The load check: the timing-sensitive tests, run again and again on a machine kept busy.

    .venv/bin/python -m tests.load_check                 # 10 rounds, a hog on every core
    .venv/bin/python -m tests.load_check --rounds 3 -n 2 # fewer rounds, two xdist workers
    .venv/bin/python -m tests.load_check -- tests/session/test_replicas.py  # other tests

Each round runs pytest on TESTS (or the tests given after `--`) while one busy process per
core (`python -c 'while True: pass'`) competes for the CPU; it stops at the first failing
round (exit 1) and says which. Every test here once depended on how fast the machine was
(issue 29); since they wait on conditions and drive their clocks, a loaded machine makes
them slower, never red. docs/testing.md says when to run it.

The hogs are this script's children: it ends them by their process ids when it stops
(Ctrl-C included), and the kernel ends them if it dies first (PR_SET_PDEATHSIG).
"""

from __future__ import annotations

import argparse
import ctypes
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

TESTS = [
    "tests/session/test_replicas.py",
    "tests/session/test_workers.py",
    "tests/session/test_postgres.py::test_a_lost_server_is_a_503_per_request_then_service_resumes",
    "tests/project/test_budget.py",
    "tests/engine/test_zygote.py::test_warm_cold_uncached_and_serial_builds_write_the_same_bytes",
    "tests/extension/test_build_golden.py::test_building_twice_gives_identical_bytes",
    "tests/reliability/test_kill_race.py",
    "tests/reliability/test_tool_bounds.py",
    "tests/reliability/test_blocked_loop.py",
    "tests/connections/test_tools.py",
    "tests/session/engine/test_failures.py::test_a_session_killed_mid_turn_resumes_from_its_last_turn",
    "tests/session/engine/test_failures.py::test_a_refused_connection_names_the_url",
    "tests/session/engine/test_engine.py::test_a_cancelled_turn_leaves_the_history_as_it_was",
    "tests/local/test_reload.py::test_reload_is_refused_while_a_call_runs",
    "tests/local/test_events.py::test_an_extension_over_its_budget_is_dropped",
    "tests/runtime/test_hooks.py::test_a_handler_over_half_its_budget_gets_a_warning",
    "tests/cli/test_dev_watch.py::test_a_save_prints_one_generation_and_no_watcher_log",
]
"""The modules and tests of issue 29 (items 1-17) that measured or assumed time."""

HOG = "while True: pass"
PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:  # in the hog, before exec: SIGKILL when this script dies
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def start_hogs(count: int) -> list[subprocess.Popen[bytes]]:
    return [subprocess.Popen([sys.executable, "-c", HOG], preexec_fn=_die_with_parent)
            for _ in range(count)]


def stop_hogs(hogs: list[subprocess.Popen[bytes]]) -> None:
    for hog in hogs:
        if hog.poll() is None:
            os.kill(hog.pid, signal.SIGKILL)
        hog.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.load_check",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=10, help="rounds in a row (10)")
    parser.add_argument("--hogs", type=int, default=os.cpu_count() or 1,
                        help="busy processes (default: one per core)")
    parser.add_argument("-n", "--workers", default="0",
                        help="pytest-xdist workers per round (default 0: one process)")
    parser.add_argument("tests", nargs="*", help="tests to run instead of the default list")
    options = parser.parse_args(argv)
    tests = options.tests or TESTS
    hogs = start_hogs(options.hogs)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # finally: the hogs end
    print(f"load check: {options.rounds} rounds of {len(tests)} test targets, "
          f"{options.hogs} busy processes", flush=True)
    try:
        for number in range(1, options.rounds + 1):
            started = time.monotonic()
            done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                   "-n", str(options.workers), *tests], cwd=REPO, check=False)
            took = time.monotonic() - started
            if done.returncode != 0:
                print(f"load check: round {number} FAILED (pytest exit {done.returncode}) "
                      f"after {number - 1} green rounds", flush=True)
                return 1
            print(f"load check: round {number} of {options.rounds} passed ({took:.0f} s)",
                  flush=True)
    finally:
        stop_hogs(hogs)
    print(f"load check: all {options.rounds} rounds passed", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
