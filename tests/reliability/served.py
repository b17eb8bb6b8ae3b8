"""A served agent whose channels and tools misbehave on purpose, and a real `eve serve`.

The `crm` mount reads `env("CRM_API_KEY")`; the overrides of its `search` tool and
its `webhook` channel put that secret in their exceptions (plainly, repr-escaped and
JSON-escaped). The agent's own channels return responses that cannot be sent, echo
a body's size, and block the event loop.
"""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from tests.runtime.apps import compile_app, make_app, mount_file

SECRET = "s3cr'et\\\"-ünï-CANARY-42"
"""Holds a quote, a double quote, a backslash and non-ASCII: its repr and JSON forms differ."""
ENVIRON = {"CRM_API_KEY": SECRET}
CHANNEL = """\
import json, time
from starlette.responses import Response
from eve_build.sdk import define_channel

{body}

channel = define_channel(route="{route}", handle=handle, method="{method}")
"""
LEAK = ("'key is ' + extension.config.api_key + ' / ' + repr(extension.config.api_key) + "
        "' / ' + json.dumps(extension.config.api_key) + ' / ' + "
        "json.dumps(extension.config.api_key, ensure_ascii=False)")
FILES = {
    "extensions/crm.py": mount_file("acme_crm", 'api_key=env("CRM_API_KEY"), region="eu"'),
    "tools/crm__search.py": f"""\
import json
from pydantic import BaseModel
from acme_crm.extension.extension import extension
from eve_build.sdk import define_tool


class In(BaseModel):
    query: str = ""


def execute(input, ctx):
    ctx.report_progress('progress with ' + extension.config.api_key)
    raise RuntimeError({LEAK})


tool = define_tool(description="Leaks its key in its error.", input=In, execute=execute)
""",
    "channels/crm__webhook.py": CHANNEL.replace(
        "from eve_build.sdk", "from acme_crm.extension.extension import extension\n"
        "from eve_build.sdk").format(route="/crm/webhook", method="POST", body=(
            f"def handle(request, ctx):\n    raise RuntimeError({LEAK})")),
    "tools/stall.py": """\
import time
from pydantic import BaseModel
from eve_build.sdk import define_tool


class In(BaseModel):
    pass


async def execute(input, ctx):
    time.sleep(2.5)  # sync sleep in async def: the loop is held
    return {"stalled": True}


tool = define_tool(description="Blocks the event loop.", input=In, execute=execute)
""",
    "channels/status999.py": CHANNEL.format(route="/status999", method="GET", body=(
        "def handle(request, ctx):\n    return Response('x', status_code=999)")),
    "channels/crlf.py": CHANNEL.format(route="/crlf", method="GET", body=(
        "def handle(request, ctx):\n"
        "    return Response('x', headers={'x-a': 'a\\r\\nset-cookie: evil=1'})")),
    "channels/size.py": CHANNEL.format(route="/size", method="POST", body=(
        "async def handle(request, ctx):\n    return {'bytes': len(await request.body())}")),
    "channels/blocker.py": CHANNEL.format(route="/blocker", method="POST", body=(
        "async def handle(request, ctx):\n    time.sleep(2.5)  # sync sleep in async def\n"
        "    return {'slept': True}")),
}


def make_hostile_app(root: Path) -> Path:
    make_app(root, ["acme-crm"], FILES)
    compile_app(root)
    return root


class LiveServer:
    """`eve serve` on a free port; stdout and stderr lines arrive on queues as they come."""

    def __init__(self, root: Path, home: Path, *args: str, verbose: bool = False,
                 env: dict[str, str] | None = None) -> None:
        env = {**os.environ, **ENVIRON, "EVE_HOME": str(home), "NO_COLOR": "1", **(env or {})}
        flags = ["-v"] if verbose else []
        self.process = subprocess.Popen(
            [sys.executable, "-m", "eve_build", *flags, "serve", "--path", str(root),
             "--port", "0", *args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        self.out: queue.Queue[str] = queue.Queue()
        self.err: list[str] = []
        self._err_lock = threading.Lock()
        self._pumps = [threading.Thread(target=self._pump_out, daemon=True),
                       threading.Thread(target=self._pump_err, daemon=True)]
        for pump in self._pumps:
            pump.start()

    def _pump_out(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.out.put(line)

    def _pump_err(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            with self._err_lock:
                self.err.append(line)

    def wait_ready(self, timeout: float = 60.0) -> str:
        try:
            line = self.out.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"eve serve did not start: {self.stderr()}") from None
        assert line.startswith("serving on http://127.0.0.1:"), line
        return line.split()[2]

    def stderr(self) -> str:
        with self._err_lock:
            return "".join(self.err)

    def wait_for_log(self, text: str, timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            log = self.stderr()
            if text in log:
                return log
            time.sleep(0.05)
        raise AssertionError(f"{text!r} never appeared in the log:\n{self.stderr()}")

    def rss_kib(self) -> int:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        raise AssertionError("no VmRSS")

    def stop(self) -> tuple[int, str]:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            code = self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            code = self.process.wait(timeout=30)
        for pump in self._pumps:  # each ends at its pipe's end: every last line is read
            pump.join(timeout=60)
            assert not pump.is_alive(), "a pipe of eve serve stayed open after it exited"
        return code, self.stderr()
