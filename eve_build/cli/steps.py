"""Stream the steps of a long command (`eve extension init`) to stderr as they happen.

On a terminal a spinner shows the running step (rich, which typer brings); otherwise
each step prints a plain line when it starts and when it ends, with its duration, so
logs and CI show where the time goes.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

from eve_build.cli.output import echo_err


def _say_nothing(event: str, step: str) -> None:
    del event, step


def make_step_printer(terminal: bool | None = None) -> Callable[[str, str], None]:
    """A `StepReporter` for the CLI: spinner on a terminal, plain lines otherwise, nothing
    with `--quiet` (the steps are progress)."""
    from eve_build.cli.output import SETTINGS

    if SETTINGS.quiet:
        return _say_nothing
    console: Any = None
    if terminal if terminal is not None else sys.stderr.isatty():
        try:
            from rich.console import Console

            console = Console(stderr=True)
        except ImportError:
            console = None
    started: dict[str, float] = {}
    spinners: dict[str, Any] = {}

    def report(event: str, step: str) -> None:
        now = time.monotonic()
        if event == "start":
            started[step] = now
            if console is not None:
                spinners[step] = console.status(f"{step}...")
                spinners[step].start()
            else:
                echo_err(f"- {step}...")
            return
        spinner = spinners.pop(step, None)
        if spinner is not None:
            spinner.stop()
        took = now - started.pop(step, now)
        outcome = "done" if event == "done" else "failed"
        echo_err(f"  {outcome}: {step} ({took:.1f} s)")

    return report


def print_created(result: Any, *, json_output: bool, what: str, fields: dict[str, Any],
                  next_title: str = "Next steps:") -> None:
    """What `eve extension init` / `eve init` made: the `created` JSON, or the lines
    `Created WHAT in DIR`, each step done and the next steps."""
    from eve_build.cli.output import emit_result, summary
    from eve_build.cli.summaries import shown_path

    if json_output:
        emit_result("created", (), **fields, directory=str(result.target), files=result.files,
                    steps=result.steps, nextSteps=result.next_steps)
        return
    summary(f"Created {what} in {shown_path(result.target)}")
    for step in result.steps:
        summary(f"  - {step}")
    summary(f"\n{next_title}")
    for line in result.next_steps:
        summary(f"  {line}")
