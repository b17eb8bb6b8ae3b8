"""`eve dev` serving: each good round is swapped in; requests in flight finish where they began."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import httpx

from eve_build.dev.loop import DevSession
from eve_build.serve.app import build_app
from eve_build.serve.dev import DevServer
from eve_build.serve.generation import Host
from tests.runtime.apps import compile_app, make_app, mount_file
from tests.serve.apps import write_version


def test_a_swap_keeps_requests_in_flight_on_their_generation(dev_root: Path) -> None:
    session = DevSession(dev_root)
    host = Host(None)

    async def scenario() -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        server = DevServer(host, dev_root, lambda call: loop.call_soon_threadsafe(call))
        app = build_app(dev_root, host=host, schedules=False)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
            before = (await client.get("/.eve/health")).status_code
            await asyncio.to_thread(server.on_round, session.build())
            await asyncio.sleep(0)  # the swap was handed to this loop: let it run
            slow = sys.modules["eve_agent.channels.slow"]  # generation 1's module
            slow.STATE["release"] = asyncio.Event()
            in_flight = asyncio.ensure_future(client.post("/slow"))
            while not slow.STATE.get("started"):
                await asyncio.sleep(0)
            changed = write_version(dev_root, "two")
            round_two = await asyncio.to_thread(session.build, changed)
            problems = await asyncio.to_thread(server.on_round, round_two)
            await asyncio.sleep(0)
            during = (await client.get("/version")).json()
            health = (await client.get("/.eve/health")).json()
            old_in_flight = host.retired[0].in_flight
            slow.STATE["release"].set()
            finished = (await in_flight).json()
        return {"before": before, "problems": problems, "during": during,
                "generation": health["generation"], "old_in_flight": old_in_flight,
                "finished": finished, "retired_after": host.retired[0].in_flight}

    try:
        seen = asyncio.run(scenario())
    finally:
        host.close()
    assert seen == {"before": 503, "problems": [], "during": {"version": "two"},
                    "generation": 2, "old_in_flight": 1, "finished": {"version": "one"},
                    "retired_after": 0}


def test_a_failed_round_keeps_the_generation_being_served(dev_root: Path) -> None:
    session = DevSession(dev_root)
    host = Host(None)
    server = DevServer(host, dev_root, lambda call: call())
    try:
        server.on_round(session.build())
        broken = dev_root / "agent/channels/version.py"
        broken.write_text("def handle(:\n")
        failed = session.build({broken})
        assert not failed.ok
        assert server.on_round(failed) == []
        assert host.current is not None and host.current.number == 1
    finally:
        host.close()


def test_a_round_that_builds_but_does_not_load_keeps_the_generation(tmp_path: Path) -> None:
    root = make_app(tmp_path / "app", ["gizmo", "acme-crm"],
                    {"extensions/gizmo.py": mount_file("gizmo")})
    compile_app(root)
    session = DevSession(root)
    host = Host(None)
    server = DevServer(host, root, lambda call: call(), environ={"CRM_MAX": "many"})
    try:
        server.on_round(session.build())
        mount = root / "agent/extensions/crm.py"  # builds (env deferred), cannot load: not an int
        mount.write_text(mount_file("acme_crm", 'api_key="k", max_results=env("CRM_MAX")'))
        round_two = session.build({mount})
        problems = server.on_round(round_two)
        assert round_two.ok
        assert [d.code for d in problems] == ["mount/config-invalid"]
        assert host.current is not None and host.current.number == 1
        assert server.load_failures[0][0] == 2
    finally:
        host.close()
