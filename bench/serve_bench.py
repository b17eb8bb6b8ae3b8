"""Requests per second of a trivial channel under `eve serve`, against plain starlette.

    python bench/serve_bench.py [--requests 3000] [--concurrency 16] [--repeat 3]
                                [--client wrk|httpx] [--seconds 5]

Generates, in a temporary folder, an agent whose channels do nothing: `POST /ping`
(a sync handler, run on a worker thread) and `POST /aping` (an async handler), and
builds it with `eve build`. Then measures, for the eve host and for a plain
starlette app with the same two kinds of endpoint answering the same JSON (an
async one that reads the body, a sync one that starlette runs on a worker thread):

- asgi: the application called in process with a synthetic request (no network,
  no server): the host's own overhead per request;
- http: the real server (`eve serve --no-access-log`, and uvicorn running the plain
  app with the same settings) over TCP, --concurrency requests in flight for
  --seconds, sent by wrk when it is on PATH (Debian's package `wrk`). Without it,
  an httpx client sends --requests; on a 2-core machine that Python client is the
  bottleneck and hides most of the servers' difference.

Each row is measured --repeat times, eve and plain in alternation so both see the
same load (the machine is shared); the table gives the best rate of each and the
median of the per-pair overheads. Prints a markdown table.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import os
import platform
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx

from eve_build.consumer.build import build_agent
from eve_build.serve import create_app

CHANNEL = '''from eve_build.sdk import define_channel


{prefix}def handle(request, ctx):
    return {{"ok": True}}


channel = define_channel(route="/{route}", handle=handle, method="POST")
'''
PLAIN = '''from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Route


async def aping(request):
    await request.body()
    return JSONResponse({"ok": True})


def ping(request):  # sync: starlette runs it on a worker thread, as eve runs `handle`
    return JSONResponse({"ok": True})


app = Starlette(routes=[Route("/ping", ping, methods=["POST"]),
                        Route("/aping", aping, methods=["POST"])])
'''
ASGIApp = Callable[[dict[str, Any], Any, Any], Awaitable[None]]


def make_agent(root: Path) -> Path:
    (root / "agent" / "channels").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "bench-serve"\nversion = "0.1.0"\n')
    (root / "agent" / "instructions.md").write_text("Benchmark agent.\n")
    (root / "agent" / "channels" / "ping.py").write_text(CHANNEL.format(prefix="", route="ping"))
    (root / "agent" / "channels" / "aping.py").write_text(
        CHANNEL.format(prefix="async ", route="aping"))
    build_agent(root)
    return root


def asgi_rate(app: ASGIApp, path: str, requests: int) -> float:
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
             "method": "POST", "scheme": "http", "path": path, "raw_path": path.encode(),
             "root_path": "", "query_string": b"", "client": ("127.0.0.1", 1),
             "server": ("127.0.0.1", 80),
             "headers": [(b"host", b"bench"), (b"content-length", b"2"),
                         (b"content-type", b"application/json")]}
    statuses: list[int] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"{}", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            statuses.append(message["status"])

    async def run() -> float:
        start = time.perf_counter()
        for _ in range(requests):
            await app(dict(scope), receive, send)
        return requests / (time.perf_counter() - start)

    rate = asyncio.run(run())
    assert set(statuses) == {200}, set(statuses)
    return rate


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def http_rate(command: list[str], cwd: Path, path: str, load: Callable[[str], float]) -> float:
    port = free_port()
    log = cwd / "server.log"
    with log.open("w") as sink:
        process = subprocess.Popen([*command, "--port", str(port)], cwd=cwd,
                                   stdout=subprocess.DEVNULL, stderr=sink)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(1200):  # wait until it answers
            try:
                httpx.post(f"{url}{path}", json={}, timeout=1.0)
                break
            except httpx.TransportError:
                if process.poll() is not None:
                    break
                time.sleep(0.05)
        else:
            raise RuntimeError(f"the server did not start:\n{log.read_text()}")
        if process.poll() is not None:
            raise RuntimeError(f"the server exited:\n{log.read_text()}")
        return load(url + path)
    finally:
        process.terminate()
        process.wait(timeout=30)


def wrk_load(seconds: float, concurrency: int) -> Callable[[str], float]:
    """Requests per second that wrk (one thread) measured, POSTs with no body."""
    script = Path(tempfile.mkdtemp(prefix="eve-wrk-")) / "post.lua"
    script.write_text('wrk.method = "POST"\n')

    def load(url: str) -> float:
        done = subprocess.run(["wrk", "-t1", f"-c{concurrency}", f"-d{seconds:g}s", "-s",
                               str(script), url], capture_output=True, text=True, check=True)
        if "Non-2xx" in done.stdout or "Socket errors" in done.stdout:
            raise RuntimeError(f"wrk saw failed requests:\n{done.stdout}")
        found = re.search(r"Requests/sec:\s+([0-9.]+)", done.stdout)
        if found is None:
            raise RuntimeError(f"wrk printed no rate:\n{done.stdout}{done.stderr}")
        return float(found.group(1))

    return load


def httpx_load(requests: int, concurrency: int) -> Callable[[str], float]:
    return lambda url: asyncio.run(_load(url, requests, concurrency))


async def _load(url: str, requests: int, concurrency: int) -> float:
    remaining = [requests]
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(limits=limits, timeout=30.0) as client:

        async def worker() -> None:
            while remaining[0] > 0:
                remaining[0] -= 1
                response = await client.post(url)  # no body: one write, so Nagle never waits
                assert response.status_code == 200, response.text

        start = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return requests / (time.perf_counter() - start)


def paired(eve: Callable[[], float], plain: Callable[[], float],
           repeat: int) -> tuple[float, float, float]:
    """Best rps of each and the median overhead, measured in alternation (eve, plain,
    eve, ...) so that both see the same load on a shared machine."""
    pairs = [(eve(), plain()) for _ in range(repeat)]
    ratios = sorted(p / e - 1 for e, p in pairs)
    return max(e for e, _ in pairs), max(p for _, p in pairs), ratios[len(ratios) // 2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=3000)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=5.0,
                        help="how long wrk sends requests, per measurement")
    parser.add_argument("--client", choices=["wrk", "httpx"],
                        default="wrk" if shutil.which("wrk") else "httpx")
    options = parser.parse_args()
    load = (wrk_load(options.seconds, options.concurrency) if options.client == "wrk"
            else httpx_load(options.requests, options.concurrency))
    count, repeat = options.requests, options.repeat
    rows: list[tuple[str, str, tuple[float, float, float]]] = []
    with tempfile.TemporaryDirectory(prefix="eve-serve-bench-") as scratch:
        base = Path(scratch)
        root = make_agent(base / "app")
        (base / "plain.py").write_text(PLAIN)
        sys.path.insert(0, str(base))
        import plain  # the file written just above

        eve_app = create_app(root, schedules=False)
        served = [sys.executable, "-m", "eve_build", "serve", "--path", str(root),
                  "--no-access-log"]
        uvicorn = [sys.executable, "-m", "uvicorn", "plain:app", "--no-access-log",
                   "--log-level", "warning", "--host", "127.0.0.1"]
        try:
            for path, label in (("/ping", "sync `handle`"), ("/aping", "async `handle`")):
                rows.append(("in process (ASGI)", label, paired(
                    lambda p=path: asgi_rate(eve_app, p, count),
                    lambda p=path: asgi_rate(plain.app, p, count), repeat)))
                rows.append(("over HTTP (uvicorn)", label, paired(
                    lambda p=path: http_rate(served, base, p, load),
                    lambda p=path: http_rate(uvicorn, base, p, load),
                    repeat)))
        finally:
            eve_app.state.host.close()
    sent = (f"wrk for {options.seconds:g} s" if options.client == "wrk"
            else f"httpx, {count} requests")
    print(f"{count} requests in process; over HTTP {sent}, {options.concurrency} in flight; "
          f"best of {repeat}; "
          f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}, {datetime.date.today()}\n")
    print("| measured | channel | eve serve rps | plain starlette rps | eve overhead "
          "(median of pairs) | µs added per request |")
    print("|---|---|---:|---:|---:|---:|")
    for mode, label, (eve, starlette, overhead) in rows:
        added = (1 / eve - 1 / starlette) * 1e6
        print(f"| {mode} | {label} | {eve:.0f} | {starlette:.0f} | {overhead * 100:.0f}% | "
              f"{added:.0f} |")


if __name__ == "__main__":
    main()
