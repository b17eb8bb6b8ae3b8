"""A worker's entry point: run one job, send its result, end at once.

Both ways of starting a worker use it: `workers.run_jobs` (a process of its own) and
the zygote (`zygote._run_worker`, forked warm); kept apart from both so that neither
imports the other for it.
"""

from __future__ import annotations

import os
import signal
import sys
import traceback
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

from eve_build.engine import lifeline
from eve_build.load import progress

Target = Callable[[Any], Any]


def _worker_main(channel: Connection, target: Target, payload: Any, parent: int) -> None:
    """The worker's entry point: run the job, send the result, end at once."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for number in (signal.SIGTERM, signal.SIGHUP):  # the parent's handlers are not ours
        signal.signal(number, signal.SIG_DFL)
    lifeline.bind_to_parent(parent)
    sys.stdout.flush()
    os.dup2(2, 1)  # user code that prints writes to stderr, never into our output
    progress.install(channel)
    code = 0
    try:
        result = target(payload)
        found = progress.finish()
        progress.send({"result": result, "found": [d.to_json() for d in found]})
    except BaseException:  # a bug of eve-build's own: report it, never hang
        progress.send({"error": traceback.format_exc(limit=8)})
        code = 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)  # skips joining threads user code left running
