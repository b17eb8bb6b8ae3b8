"""The cost per turn of the session routes on a durable store (issue 26: the store lock).

    python bench/session_routes_bench.py [--turns 100] [--repeat 3] [--sessions 4]

Builds, in a temporary folder, an agent with one sync tool `echo`, serves it in-process
(`build_app` with a session store, driven through httpx's ASGI transport, so the
measure is the route and the store, without sockets) and sends `--turns` messages, in
turn to `--sessions` sessions, each message one turn of pydantic-ai's TestModel (one
`echo` call, then a text). Per turn: wall time and the process's CPU time (user + sys:
the machine is shared, CPU time is what the turn itself costs). Also the claim alone:
claim + release of a session, one write transaction each (the store lock a turn adds,
besides the renewals every 10 s of a long turn).

Run it on two trees to compare (`PYTHONPATH=/tmp/old python bench/...`): a tree
without eve_build.session.claims measures the routes as they were (no claim row). On
SQLite (`synchronous=FULL`) and, when the machine has its binaries, a local PostgreSQL
with fsync on (tests/session/postgres_server.py). Prints a markdown table, with the
machine, the date and the load average before and after.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import importlib.util
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parent.parent
sys.path.append(str(REPO))  # the tests' PostgreSQL helper; eve_build from PYTHONPATH first

from tests.session.postgres_server import find_bin_dir, running_postgres  # noqa: E402

TOOL = '''from pydantic import BaseModel
from eve_build.sdk import define_tool


class Input(BaseModel):
    text: str


def run(input: Input, ctx: object) -> dict[str, str]:
    return {"text": input.text}


tool = define_tool(description="Echo.", input=Input, execute=run)
'''
SESSIONS = "/.eve/v1/sessions"


def make_agent(folder: Path) -> Path:
    from eve_build.consumer.build import build_agent

    root = folder / "app"
    (root / "agent/tools").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "bench"\nversion = "0.1.0"\n')
    (root / "agent/instructions.md").write_text("You are a bench agent.\n")
    (root / "agent/tools/echo.py").write_text(TOOL)
    build_agent(root)
    return root


def clocks() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def measure_turns(root: Path, store_url: str, args: argparse.Namespace
                  ) -> tuple[list[float], list[float]]:
    """(wall ms, CPU ms) of each turn over the routes."""
    from eve_build.serve.app import build_app
    from eve_build.session.store import open_session_store

    store = open_session_store(root, url=store_url)
    app = build_app(root, environ={**os.environ, "EVE_MODEL": "test"}, store=store,
                    schedules=False)
    walls: list[float] = []
    cpus: list[float] = []

    async def drive() -> None:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as c:
            ids = [(await c.post(SESSIONS)).json()["id"] for _ in range(args.sessions)]
            for index in range(args.turns + args.sessions):  # the first round warms up
                wall, cpu = clocks()
                answer = await c.post(f"{SESSIONS}/{ids[index % len(ids)]}/messages",
                                      json={"text": "go"})
                done_wall, done_cpu = clocks()
                if answer.status_code != 200:
                    raise RuntimeError(answer.text)
                if index >= args.sessions:
                    walls.append((done_wall - wall) * 1000)
                    cpus.append((done_cpu - cpu) * 1000)

    try:
        asyncio.run(drive())
    finally:
        store.close()
    return walls, cpus


def measure_claims(root: Path, store_url: str, count: int) -> tuple[float, float] | None:
    """Median (wall ms, CPU ms) of claim + release, or None in a tree without claims."""
    if importlib.util.find_spec("eve_build.session.claims") is None:
        return None
    from eve_build.session.store import open_session_store

    store = open_session_store(root, url=store_url)
    try:
        row = store.create_session(model="test")
        claims: Any = store.session_claims()
        walls, cpus = [], []
        for _ in range(count):
            wall, cpu = clocks()
            claims.release(claims.claim(row.id, "bench:1", 30.0))
            done_wall, done_cpu = clocks()
            walls.append((done_wall - wall) * 1000)
            cpus.append((done_cpu - cpu) * 1000)
    finally:
        store.close()
    return statistics.median(walls), statistics.median(cpus)


def best(runs: list[tuple[list[float], list[float]]], pick: Callable[[Any], Any]
         ) -> tuple[float, float]:
    kept = min(runs, key=lambda r: statistics.median(pick(r)))
    return statistics.median(kept[0]), statistics.median(kept[1])


def load_average() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=100)
    parser.add_argument("--sessions", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    import eve_build

    before = load_average()
    rows: list[tuple[str, tuple[float, float], tuple[float, float] | None]] = []
    with tempfile.TemporaryDirectory(prefix="eve-routes-bench-") as folder:
        root = make_agent(Path(folder))
        def sqlite_url(i: int) -> str:
            return f"sqlite://{folder}/s{i}.sqlite3"

        stores: list[tuple[str, Callable[[int], str]]] = [("SQLite", sqlite_url)]
        bin_dir = find_bin_dir()
        with running_postgres(bin_dir, fsync=True) if bin_dir else nullcontext() as server:
            if server is not None:
                def pg_url(i: int) -> str:
                    return str(server.create_database(f"bench{i}"))
                stores.append(("PostgreSQL", pg_url))
            for name, url in stores:
                runs = [measure_turns(root, url(i), args) for i in range(args.repeat)]
                rows.append((name, best(runs, lambda r: r[1]),
                             measure_claims(root, url(args.repeat), args.turns)))
    print(f"eve_build from {Path(eve_build.__file__).parent}; {platform.platform()}, "
          f"{os.cpu_count()} cores, CPython {platform.python_version()}, "
          f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC, load average "
          f"{before} before, {load_average()} after; {args.turns} turns over "
          f"{args.sessions} sessions, best median of {args.repeat} runs (by CPU)")
    print("\n| store | turn wall (ms) | turn CPU (ms) | claim + release wall / CPU (ms) |")
    print("|---|---:|---:|---:|")
    for name, (wall, cpu), claim in rows:
        shown = f"{claim[0]:.2f} / {claim[1]:.2f}" if claim else "-"
        print(f"| {name} | {wall:.2f} | {cpu:.2f} | {shown} |")


if __name__ == "__main__":
    main()
