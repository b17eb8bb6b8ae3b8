"""create_app in process, through httpx's ASGI transport: channels, health, bad handlers."""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest
from starlette.responses import JSONResponse
from starlette.routing import Route

from eve_build.install_hint import derive_extra_hint
from eve_build.serve import create_app
from eve_build.serve.faults import FAULT_HINT
from tests.serve.apps import ENVIRON

T = TypeVar("T")
Scenario = Callable[[httpx.AsyncClient], Awaitable[T]]


def talk(root: Path, scenario: Scenario[T], **options: Any) -> T:
    """Run `scenario` against a fresh app of `root` (no lifespan: schedules stay off)."""
    options = {"environ": ENVIRON, "channel_timeout": 0.3, "schedules": False, **options}
    app = create_app(root, **options)

    async def main() -> T:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            return await scenario(client)

    try:
        return asyncio.run(main())
    finally:
        app.state.host.close()


def test_channels_of_two_mounts_answer_with_their_own_config(served_root: Path) -> None:
    async def scenario(client: httpx.AsyncClient) -> list[httpx.Response]:
        return [await client.post("/crm/webhook", json={}),
                await client.post("/company/webhook", json={})]

    crm, company = talk(served_root, scenario)
    assert (crm.status_code, crm.json()) == (200, {"received": True, "region": "eu"})
    assert (company.status_code, company.json()) == (200, {"received": True, "region": "us"})


def test_health_names_the_generation_and_what_is_served(served_root: Path) -> None:
    async def scenario(client: httpx.AsyncClient) -> httpx.Response:
        return await client.get("/.eve/health")

    response = talk(served_root, scenario)
    assert response.status_code == 200
    body = response.json()
    assert (body["status"], body["generation"]) == ("ok", 1)
    assert body["channels"] == [
        "POST /boom", "POST /echo", "POST /hang", "GET /hello", "GET /unserializable",
        "POST /company/webhook", "POST /crm/webhook"]
    assert body["schedules"] == ["digest", "flaky", "tick", "company__reports/weekly",
                                 "company__sync", "crm__reports/weekly", "crm__sync"]


def test_the_request_carries_body_query_and_headers(served_root: Path) -> None:
    async def scenario(client: httpx.AsyncClient) -> list[httpx.Response]:
        return [
            await client.post("/echo?x=1", json={"a": [1, 2]}, headers={"X-Agent": "probe"}),
            await client.get("/hello", params={"name": "Ada"}),
        ]

    echo, hello = talk(served_root, scenario)
    assert echo.json() == {"got": {"a": [1, 2]}, "query": {"x": "1"}, "agent": "probe",
                           "channel": "echo"}
    assert (hello.status_code, hello.text, hello.headers["content-type"]) == (
        200, "hello Ada", "text/plain; charset=utf-8")


def test_a_body_that_is_not_json_is_a_400_with_the_reason(served_root: Path) -> None:
    async def scenario(client: httpx.AsyncClient) -> httpx.Response:
        return await client.post("/echo", content=b"{not json")

    response = talk(served_root, scenario)
    assert response.status_code == 400
    assert response.json() == {"error": {
        "code": "serve/body-invalid",
        "message": "the request body is not valid JSON: Expecting property name enclosed in "
                   "double quotes (line 1, column 2)",
        "hint": "send a JSON body with `Content-Type: application/json`", "channel": "echo"}}


@pytest.mark.parametrize(("method", "path", "code", "reason"), [
    ("POST", "/boom", "serve/channel-raised",
     "the handler raised ValueError: the ledger is closed (at "),
    ("POST", "/hang", "serve/channel-timeout", "the handler did not answer within 0.3 s"),
    ("GET", "/unserializable", "serve/channel-result-invalid",
     "the handler returned a value that is not JSON: Object of type object is not JSON "
     "serializable"),
])
def test_a_failing_handler_is_a_500_and_a_log_line_and_the_server_goes_on(
    served_root: Path, caplog: pytest.LogCaptureFixture, method: str, path: str, code: str,
    reason: str,
) -> None:
    async def scenario(client: httpx.AsyncClient) -> list[httpx.Response]:
        return [await client.request(method, path), await client.post("/crm/webhook")]

    with caplog.at_level(logging.ERROR, logger="eve_build.serve"):
        failed, after = talk(served_root, scenario)
    name = path.strip("/")
    assert failed.status_code == 500
    assert failed.json() == {"error": {"code": code, "message": f"the channel `{name}` failed",
                                       "hint": FAULT_HINT, "channel": name}}
    assert "Traceback" not in failed.text and "ledger" not in failed.text
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 1
    assert lines[0].startswith(f"channel `{name}` ({method} {path}): 500 {code}: {reason}")
    assert after.status_code == 200


def test_unknown_routes_and_methods_are_404_and_405(served_root: Path) -> None:
    async def scenario(client: httpx.AsyncClient) -> list[int]:
        return [(await client.get("/nowhere")).status_code,
                (await client.get("/crm/webhook")).status_code]

    assert talk(served_root, scenario) == [404, 405]


def test_extra_routes_are_matched_before_the_channels(served_root: Path) -> None:
    async def extra(_request: object) -> JSONResponse:
        return JSONResponse({"extra": True})

    async def scenario(client: httpx.AsyncClient) -> list[Any]:
        return [(await client.get("/extra")).json(),
                (await client.post("/crm/webhook")).json()["region"]]

    assert talk(served_root, scenario, routes=[Route("/extra", extra)]) == [{"extra": True}, "eu"]


def test_channel_requests_are_told_to_observers(served_root: Path) -> None:
    async def scenario(client: httpx.AsyncClient) -> list[tuple[str, dict[str, Any]]]:
        import eve_agent.hooks.watch as watch  # the agent package of the loaded app

        watch.SEEN.clear()
        await client.post("/boom")
        return list(watch.SEEN)

    seen = talk(served_root, scenario)
    assert [(name, data["channel"], data["phase"]) for name, data in seen] == [
        ("channel.request", "boom", "start"), ("channel.request", "boom", "end")]
    assert seen[1][1]["status"] == 500


def test_without_the_serve_extra_the_error_names_the_install_command(
    served_root: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    from eve_build.errors import DiagnosticsError

    monkeypatch.setitem(sys.modules, "uvicorn", None)  # as if it were not installed
    with pytest.raises(DiagnosticsError) as caught:
        create_app(served_root, environ=ENVIRON)
    [diagnostic] = caught.value.diagnostics
    assert (diagnostic.code, diagnostic.message, diagnostic.hint) == (
        "serve/extra-missing", "serving needs `uvicorn`, which this environment lacks",
        derive_extra_hint("serve"))
    assert "-m pip install 'httpx>=0.27' 'starlette>=0.37' 'uvicorn>=0.30'" in diagnostic.hint


def test_the_lifespan_runs_the_scheduler_and_extra_lifespans_in_order(served_root: Path) -> None:
    import contextlib
    from collections.abc import AsyncIterator
    from datetime import UTC, datetime

    steps: list[str] = []

    def extra(name: str) -> Callable[[object], contextlib.AbstractAsyncContextManager[None]]:
        @contextlib.asynccontextmanager
        async def span(_app: object) -> AsyncIterator[None]:
            steps.append(f"enter {name}")
            yield
            steps.append(f"leave {name}")

        return span

    frozen = datetime(2026, 12, 1, 10, 7, tzinfo=UTC)
    app = create_app(served_root, environ=ENVIRON, lifespans=[extra("a"), extra("b")],
                     clock=lambda: frozen)

    async def scenario() -> dict[str, datetime]:
        async with app.router.lifespan_context(app):  # what a server runs around serving
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport,
                                         base_url="http://127.0.0.1") as client:
                assert (await client.get("/.eve/health")).status_code == 200
            steps.append("served")
            await asyncio.sleep(0)  # a turn of the loop for the scheduler's first tick
            runs: dict[str, datetime] = app.state.scheduler.next_runs()
            return runs

    next_runs = asyncio.run(scenario())
    assert steps == ["enter a", "enter b", "served", "leave b", "leave a"]
    assert next_runs["crm__sync"] == datetime(2026, 12, 1, 10, 15, tzinfo=UTC)
    assert next_runs["tick"] == datetime(2026, 12, 1, 11, 0, tzinfo=UTC)


def test_the_app_scheduler_fires_the_agent_schedules_bound_to_their_mounts(
    served_root: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    from datetime import UTC, datetime

    app = create_app(served_root, environ=ENVIRON, schedules=False)
    scheduler = app.state.scheduler

    async def scenario() -> list[str]:
        import eve_agent.hooks.watch as watch

        watch.SEEN.clear()
        scheduler.fire_due(datetime(2026, 12, 1, 10, 59, tzinfo=UTC))
        started = scheduler.fire_due(datetime(2026, 12, 1, 11, 0, tzinfo=UTC))
        await scheduler.wait_idle()
        return [*started, *(f"{d['schedule']}:{d['phase']}" for _, d in watch.SEEN
                           if d["schedule"] == "tick")]

    with caplog.at_level(logging.INFO, logger="eve_build.serve"):
        try:
            seen = asyncio.run(scenario())
        finally:
            app.state.host.close()
    assert seen == ["flaky", "tick", "company__sync", "crm__sync", "tick:start", "tick:end"]
    messages = [r.getMessage() for r in caplog.records]
    assert any(m.startswith("schedule `flaky` failed: RuntimeError: the mail server is down")
               for m in messages)
    assert any(m.startswith("schedule `crm__sync` ran in ") for m in messages)


def test_a_route_starlette_cannot_serve_is_a_diagnostic(tmp_path: Path) -> None:
    from eve_build.errors import DiagnosticsError
    from tests.runtime.apps import compile_app, make_app, mount_file
    from tests.serve.apps import CHANNEL

    root = make_app(tmp_path / "app", ["gizmo"], {
        "extensions/gizmo.py": mount_file("gizmo"),
        "channels/twice.py": CHANNEL.format(route="/items/{id}/{id}", method="GET",
                                            body="def handle(request, ctx):\n    return None"),
    })
    compile_app(root)
    with pytest.raises(DiagnosticsError) as caught:
        create_app(root, environ={})
    [diagnostic] = caught.value.diagnostics
    assert (diagnostic.code, diagnostic.file) == ("serve/route-invalid", "agent/channels/twice.py")
    assert diagnostic.message == ("the route `/items/{id}/{id}` of `twice` cannot be served: "
                                  "Duplicated param name id at path /items/{id}/{id}")


def test_a_channel_of_a_mount_missing_its_variable_is_503_with_the_reason_logged(
    served_root: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    async def scenario(client: httpx.AsyncClient) -> list[httpx.Response]:
        return [await client.post("/crm/webhook", json={}),
                await client.post("/company/webhook", json={})]

    with caplog.at_level(logging.ERROR, logger="eve_build.serve"):
        crm, company = talk(served_root, scenario, environ={"COMPANY_KEY": "k"})

    assert crm.status_code == 503
    assert crm.json() == {"error": {"code": "serve/channel-unavailable",
                                    "message": "the channel `crm__webhook` is unavailable",
                                    "hint": FAULT_HINT, "channel": "crm__webhook"}}
    assert company.status_code == 200  # the other mount of the same package still answers
    [line] = [r.getMessage() for r in caplog.records if "503" in r.getMessage()]
    assert line.endswith('`crm__webhook` cannot run: the mount `agent/extensions/crm.py` is '
                         'unavailable: config field `api_key` reads env("CRM_API_KEY"), which '
                         "is not set")
    assert "UnboundError" not in caplog.text
