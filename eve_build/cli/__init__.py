"""The `eve` command line: a thin typer layer over the core.

Only this package imports typer or prints. Each command imports its core module
inside the function, so `eve --help` stays fast. Conventions every command shares
(`-h`, `--json`, schemas, exit codes) live in `conventions.py` and `output.py`; the
typer application is `root.app` (also `eve_build.cli.app`). The hot command, `eve
extension build`, in its plain forms, reaches the build core without typer or rich
(`fast.py`); every other command line goes through typer exactly as before.

Layer 7 (cli): may import every package below it; nothing imports it (but `__main__`).
"""

from __future__ import annotations

import sys
from typing import Any


def main() -> None:
    if sys.argv[1:2] in (["run"], ["call"]):  # one message or call, then exit
        from eve_build.startup import hold_collection

        hold_collection()  # released once the agent has loaded (eve_build.startup)
    from eve_build.cli.fast import run_fast

    if run_fast(sys.argv[1:]):
        return
    from eve_build.cli.root import main as run_app

    run_app()


def __getattr__(name: str) -> Any:
    if name == "app":
        from eve_build.cli.root import app

        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
