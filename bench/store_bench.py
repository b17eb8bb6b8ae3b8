"""The cost of durable state: requests per second of a channel that updates state.

    python bench/store_bench.py [--seconds 5] [--concurrency 16] [--repeat 2]

Builds (in a temporary folder) an agent whose `POST /count` does
`hits.update(lambda n: n + 1)` and answers the new value, then serves it five ways and
sends it requests with Debian's `wrk` (one thread, --concurrency connections,
--seconds per measurement, after a one-second warm-up):

- memory: the app with state in a dict, as before the session store (one process);
- sqlite, 1 and 2 workers: `eve serve [--workers 2]` on a SQLite file;
- postgresql, 1 and 2 workers: the same on a PostgreSQL server started for the bench
  from the machine's binaries (tests/session/postgres_server.py, with fsync on;
  skipped without).

After each durable run the bench checks that the counter grew by at least the number
of requests wrk saw answered, and by at most that plus the requests still in flight
when wrk stopped (no update lost, none counted twice). Prints a markdown table with the machine,
the date and the load average before and after.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import os
import platform
import re
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.runtime.apps import compile_app, make_app, mount_file  # noqa: E402
from tests.session.postgres_server import find_bin_dir, running_postgres  # noqa: E402

FILES = {
    "extensions/gizmo.py": mount_file("gizmo"),
    "channels/count.py": (
        "from eve_build.sdk import define_channel, define_state\n\n"
        "hits = define_state('hits', lambda: 0)\n\n\n"
        "def handle(request, ctx):\n    return {'hits': hits.update(lambda n: n + 1)}\n\n\n"
        "channel = define_channel(route='/count', handle=handle, method='POST')\n"),
}
MEMORY = """
import sys
import uvicorn
from pathlib import Path
from eve_build.serve import create_app
from eve_build.serve.server import bind_socket
app = create_app(Path(sys.argv[1]), schedules=False)
config = uvicorn.Config(app, log_level="warning", access_log=False, log_config=None)
uvicorn.Server(config).run(sockets=[bind_socket("127.0.0.1", int(sys.argv[2]))])
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def serving(command: list[str], env: dict[str, str], port: int) -> Iterator[str]:
    url = f"http://127.0.0.1:{port}"
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"the server exited: {process.stderr.read()}")  # type: ignore[union-attr]
            with contextlib.suppress(httpx.TransportError):
                if httpx.get(f"{url}/.eve/health", timeout=2).status_code == 200:
                    break
            time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)


def wrk(url: str, seconds: float, concurrency: int) -> tuple[float, int]:
    """(requests per second, requests completed) of POST url."""
    script = Path(tempfile.mkdtemp(prefix="eve-wrk-")) / "post.lua"
    script.write_text('wrk.method = "POST"\n')
    done = subprocess.run(["wrk", "-t1", f"-c{concurrency}", f"-d{seconds:g}s", "--timeout",
                           "10s", "-s",
                           str(script), url], capture_output=True, text=True, check=True)
    if "Non-2xx" in done.stdout or "Socket errors" in done.stdout:
        raise RuntimeError(f"wrk saw failed requests:\n{done.stdout}")
    rate = re.search(r"Requests/sec:\s+([0-9.]+)", done.stdout)
    count = re.search(r"(\d+) requests in", done.stdout)
    if rate is None or count is None:
        raise RuntimeError(f"wrk printed no rate:\n{done.stdout}{done.stderr}")
    return float(rate.group(1)), int(count.group(1))


def measure(root: Path, kind: str, store: str | None, workers: int,
            args: argparse.Namespace) -> tuple[float, str]:
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    if store is None:
        command = [sys.executable, "-c", MEMORY, str(root), str(port)]
    else:
        env["EVE_SESSION_STORE"] = store
        command = [sys.executable, "-m", "eve_build", "serve", "--path", str(root), "--port",
                   str(port), "--no-access-log", "--no-schedules", "--workers", str(workers)]
    best, checked = 0.0, "-"
    for _ in range(args.repeat):
        with serving(command, env, port) as url:
            wrk(f"{url}/count", 1.0, args.concurrency)  # warm-up
            time.sleep(0.5)  # what was in flight when wrk stopped finishes
            middle = httpx.post(f"{url}/count", timeout=10).json()["hits"]
            rate, count = wrk(f"{url}/count", args.seconds, args.concurrency)
            time.sleep(0.5)
            after = httpx.post(f"{url}/count", timeout=10).json()["hits"]
            best = max(best, rate)
            if store is not None:  # requests in flight when wrk stopped still commit
                committed = after - middle - 1
                checked = ("none lost" if count <= committed <= count + args.concurrency
                           else f"{count} answered, {committed} committed: WRONG")
    print(f"  {kind} x{workers}: {best:.0f} rps ({checked})", file=sys.stderr)
    return best, checked


def load_average() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="eve-store-bench-"))
    root = make_app(folder / "app", ["gizmo"], FILES)
    compile_app(root)
    load_before = load_average()
    rows: list[tuple[str, int, float, str]] = []
    memory, _ = measure(root, "memory", None, 1, args)
    rows.append(("memory (a dict, before the store)", 1, memory, "-"))
    for workers in (1, 2):
        store = str(folder / f"store-{workers}.sqlite3")
        rows.append(("sqlite", workers, *measure(root, "sqlite", store, workers, args)))
    bin_dir = find_bin_dir()
    if bin_dir is None:
        print("no PostgreSQL binaries: postgresql rows skipped", file=sys.stderr)
    else:
        with running_postgres(bin_dir, fsync=True) as server:
            for workers in (1, 2):
                url = server.create_database(f"bench_{workers}")
                rows.append(("postgresql", workers, *measure(root, "postgresql", url, workers,
                                                             args)))
    print(f"Machine: {os.cpu_count()}-core {platform.machine()}, CPython "
          f"{platform.python_version()}, {datetime.date.today().isoformat()}; load average "
          f"{load_before} before, {load_average()} after. wrk -t1 -c{args.concurrency} "
          f"-d{args.seconds:g}s --timeout 10s, best of {args.repeat}.\n")
    print("| state | workers | requests/s | vs memory | updates checked |")
    print("|---|---:|---:|---:|---|")
    for kind, workers, rate, checked in rows:
        print(f"| {kind} | {workers} | {rate:.0f} | {rate / memory - 1:+.0%} | {checked} |")


if __name__ == "__main__":
    main()
