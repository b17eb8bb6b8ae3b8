"""What the reliability guards cost: the JSON check of a tool result, the writer's lock
and repair step, and the timeout a tool call now always runs under.

    python bench/reliability_bench.py [--repeat 5]

- `check_json_value` on a small result (a dict of 5 keys) and a large one (a list of
  10,000 small dicts): the price of refusing NaN, sets, bytes and objects.
- `write_tree` of 200 files: the whole write (lock, repair, stage, swap), and the
  lock + repair step alone on a clean folder.
- a sync tool call through `run_bound` with no budget and with a 300 s budget (the
  default tool timeout): the timer the host now arms for every call.
Each figure is the median of --repeat runs (the best run's median is kept). Prints a
markdown table.

    python bench/reliability_bench.py --redaction [--repeat 5] [--calls 20] [--baseline DIR]

measures what issue 23 added to `eve call` instead: redacting a result (an agent with
env secrets and one without), the loop-watchdog label of a call, the check of the
numeric settings at load; `call_tool` of an acme-crm tool with its mount's redactor
and with an empty one; and whole `eve call` processes, wall and CPU time (user + sys
of the child), against the eve-build in `--baseline`, a tree before issue 23 run by
the same interpreter (`git archive febff41 | tar -x -C /tmp/eve-base`). The machine
is shared: CPU time is the steadier figure.
"""

from __future__ import annotations

import argparse
import asyncio
import platform
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from eve_build.formats.writer import repair_output, write_tree
from eve_build.runtime.handlers import run_bound
from eve_build.runtime.loopwatch import label_task
from eve_build.runtime.redaction import Redactor, derive_redactor
from eve_build.runtime.tools import check_json_value
from eve_build.runtime.workers import WorkerPool
from eve_build.sdk.binding import Binding


def timed(action: Callable[[], object], count: int, repeat: int) -> float:
    """Best-of-`repeat` median seconds per action."""
    medians = []
    for _ in range(repeat):
        samples = []
        for _ in range(count):
            start = time.perf_counter()
            action()
            samples.append(time.perf_counter() - start)
        medians.append(statistics.median(samples))
    return min(medians)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--redaction", action="store_true")
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--baseline", type=Path, default=Path("/tmp/eve-base"))
    options = parser.parse_args()
    repeat = options.repeat
    if options.redaction:
        from leaky_app import measure_eve_call

        print_rows(redaction_rows(repeat) + measure_eve_call(options.calls, options.baseline))
        return
    small = {"query": "ada", "region": "us", "limit": 5, "requests": 1, "results": []}
    large = [{"id": index, "name": f"row {index}", "score": index / 3} for index in
             range(10_000)]
    rows = [
        ("check_json_value, small result", timed(lambda: check_json_value("t", small),
                                                 2000, repeat)),
        ("check_json_value, 10,000-row result", timed(lambda: check_json_value("t", large),
                                                      20, repeat)),
    ]
    with tempfile.TemporaryDirectory() as folder:
        target = Path(folder) / "out"
        files = {f"pkg/tools/tool_{n:03d}.py": b"x = 1\n" * 20 for n in range(200)}
        rows.append(("write_tree, 200 files (lock, repair, stage, swap)",
                     timed(lambda: write_tree(target, files), 10, repeat)))
        rows.append(("lock + repair alone", timed(lambda: repair_output(target), 500, repeat)))
    pool = WorkerPool()
    binding = Binding(None, None, "", None, {})
    loop = asyncio.new_event_loop()

    def call(budget: float | None) -> None:
        loop.run_until_complete(run_bound(lambda: 1, (), binding=binding, pool=pool,
                                          budget=budget))

    rows.append(("sync call, no budget", timed(lambda: call(None), 2000, repeat)))
    rows.append(("sync call, 300 s budget (the default tool timeout)",
                 timed(lambda: call(300.0), 2000, repeat)))
    loop.close()
    print_rows(rows)


def print_rows(rows: list[tuple[str, float]]) -> None:
    print(f"Python {platform.python_version()}, {platform.machine()}\n")
    print("| what | median |\n|---|---:|")
    for name, seconds in rows:
        shown = f"{seconds * 1e6:.1f} µs" if seconds < 1e-3 else f"{seconds * 1e3:.2f} ms"
        print(f"| {name} | {shown} |")


def redaction_rows(repeat: int) -> list[tuple[str, float]]:
    """The new per-call and per-load steps, alone."""
    from eve_build.sdk.mount import ToolResult
    from eve_build.settings import find_setting_problems

    secret = "sk-live-0123456789abcdef"
    redactor = derive_redactor({"CRM_API_KEY": secret, "COMPANY_KEY": "company-secret-42",
                                "TOKEN": "tok_abcdefghijkl"})
    failed = ToolResult(name="crm__search", status="failed", value=None,
                        error=f"RuntimeError: the CRM refused the key {secret}" + " " * 100,
                        trace=({"event": "action.call", "hook": "audit", "outcome": "proceed"},
                               {"event": "action.result", "hook": "audit",
                                "outcome": "error", "reason": "hook raised " + secret}),
                        progress=("searching", "found 3"))
    ok = ToolResult(name="crm__search", status="ok", value={"n": 1}, error=None,
                    trace=({"event": "action.call", "hook": "audit", "outcome": "proceed"},),
                    progress=())
    empty = Redactor()
    loop = asyncio.new_event_loop()

    async def labelled(count: int) -> float:
        start = time.perf_counter()
        for _ in range(count):
            with label_task("tool `crm__search`"):
                pass
        return (time.perf_counter() - start) / count

    rows = [
        ("redact a failed result (3 secrets; error, 2 trace entries, 2 progress lines)",
         timed(lambda: redactor.redact_result(failed), 5000, repeat)),
        ("redact an ok result (3 secrets)", timed(lambda: redactor.redact_result(ok), 5000,
                                                  repeat)),
        ("redact a result, agent without env values", timed(lambda: empty.redact_result(ok),
                                                            5000, repeat)),
        ("loop-watchdog label of a call (enter and exit)",
         min(loop.run_until_complete(labelled(20000)) for _ in range(repeat))),
        ("numeric settings checked at load (2 variables)",
         timed(lambda: find_setting_problems(("EVE_TOOL_TIMEOUT", "EVE_SCHEDULE_TIMEOUT"),
                                             {"EVE_TOOL_TIMEOUT": "300"}), 5000, repeat)),
    ]
    loop.close()
    return rows


if __name__ == "__main__":
    main()
