"""`eve dev` as a real subprocess: it serves generation 1, then swaps in a rebuilt one."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
from pathlib import Path

import httpx

from tests.serve.apps import write_version
from tests.serve.test_server import TIMEOUT, free_port


def test_eve_dev_serves_each_good_generation(dev_root: Path, tmp_path: Path) -> None:
    env = {**os.environ, "EVE_HOME": str(tmp_path / "home"), "NO_COLOR": "1"}
    process = subprocess.Popen(
        [sys.executable, "-m", "eve_build", "dev", "--path", str(dev_root),
         "--port", str(free_port())],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.put(line.rstrip("\n"))

    def next_line(prefix: str) -> str:
        while True:
            line = lines.get(timeout=TIMEOUT)
            if line.startswith(prefix):
                return line

    threading.Thread(target=read, daemon=True).start()
    try:
        url = next_line("serving on ").split()[2].rstrip(";")
        next_line("generation 1 ready")
        with httpx.Client(base_url=url, timeout=TIMEOUT) as client:
            first = client.get("/version").json()
            write_version(dev_root, "two")
            next_line("generation 2 ready")
            generations = [client.get("/.eve/health").json()["generation"]]
            while generations[-1] != 2 and len(generations) < 200:  # the swap follows the
                generations.append(client.get("/.eve/health").json()["generation"])  # line
            assert generations[-1] == 2
            second = client.get("/version").json()
    finally:
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=TIMEOUT)
    assert (first, second) == ({"version": "one"}, {"version": "two"})
    assert process.returncode == 0, stderr
    assert "Traceback" not in stderr
    assert stderr.rstrip().endswith("stopped on SIGTERM")
