"""A real `eve serve` of a session test agent, on a port the kernel picks.

    with serving_agent(app, env, "-e", str(talk)) as (url, process):
        httpx.post(f"{url}/.eve/v1/sessions", json={})

`--port 0 --json`: the first stdout line is the JSON start line with the bound URL, so
no test guesses a free port (another process may take it first). The server is stopped
with SIGTERM at the end of the block, killed if it does not stop; the block's caller gets
its stderr from `process.stderr_text` to check what it logged.
"""

from __future__ import annotations

import json
import queue
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

TIMEOUT = 60.0


class ServedProcess:
    """The server's process and, once it stopped, what it wrote on stderr."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.process = process
        self.stderr_text = ""

    def poll(self) -> int | None:
        return self.process.poll()


@contextmanager
def serving_agent(app: Path, env: Mapping[str, str], *extra: str
                  ) -> Iterator[tuple[str, ServedProcess]]:
    """(the server's base URL, its process) for the life of the block."""
    process = subprocess.Popen(
        [sys.executable, "-m", "eve_build", "serve", "--path", str(app), "--port", "0",
         "--json", "--no-access-log", *extra],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(env))
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.put(line)

    threading.Thread(target=read, daemon=True).start()
    served = ServedProcess(process)
    try:
        try:
            started = lines.get(timeout=TIMEOUT)
        except queue.Empty:
            raise AssertionError("eve serve printed no start line") from None
        yield json.loads(started)["url"], served
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
        try:
            _, served.stderr_text = process.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            _, served.stderr_text = process.communicate(timeout=TIMEOUT)
