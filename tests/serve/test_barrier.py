"""`create_app`'s outer layer for routes that are not channels: a raising extra route, a body
limit given to the library, settings checked on the API too (issue 23, items 8 and 12)."""

from __future__ import annotations

import logging
from pathlib import Path

import httpx
import pytest
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from eve_build.serve import create_app
from eve_build.serve.faults import FAULT_HINT
from eve_build.settings import SettingError
from tests.serve.test_app import talk


async def explode(_request: Request) -> Response:
    raise RuntimeError("an extra route broke")


def test_a_raising_extra_route_is_a_coded_500_and_one_line(
    served_root: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    async def scenario(client: httpx.AsyncClient) -> list[httpx.Response]:
        return [await client.get("/explode"), await client.get("/.eve/health")]

    with caplog.at_level(logging.ERROR, logger="eve_build.serve"):
        failed, health = talk(served_root, scenario, routes=[Route("/explode", explode)])

    assert failed.status_code == 500
    assert failed.json() == {"error": {"code": "serve/internal-error",
                                       "message": "the server failed to answer",
                                       "hint": FAULT_HINT}}
    lines = [record.getMessage() for record in caplog.records]
    assert len(lines) == 1
    assert lines[0].startswith("GET /explode: 500 serve/internal-error: the route raised "
                               "RuntimeError: an extra route broke (at ")
    assert all(record.exc_info is None for record in caplog.records)  # no traceback
    assert health.status_code == 200


def test_the_body_limit_of_the_library_applies_to_channels(served_root: Path) -> None:
    async def scenario(client: httpx.AsyncClient) -> list[httpx.Response]:
        return [await client.post("/echo", content=b'{"a": 1}'),
                await client.post("/echo", content=b'{"a": "' + b"x" * 64 + b'"}')]

    small, large = talk(served_root, scenario, max_body=32)

    assert small.status_code == 200
    assert large.status_code == 413
    assert large.json()["error"] == {
        "code": "serve/body-too-large", "message": "the request body is larger than 32 bytes",
        "hint": "send a smaller body, or start the server with a larger `--max-body`",
        "limit": 32}


@pytest.mark.parametrize("options", [{"channel_timeout": float("nan")}, {"max_body": 0},
                                     {"max_body": 2**40}])
def test_the_library_checks_its_numeric_options(served_root: Path,
                                                options: dict[str, float]) -> None:
    with pytest.raises(SettingError) as caught:
        create_app(served_root, **options)
    assert caught.value.diagnostics[0].code == "setting/value-invalid"


@pytest.mark.parametrize(("status", "headers", "sendable"), [
    (200, [], True),
    (__import__("http").HTTPStatus.ACCEPTED, [], True),  # an IntEnum, as the MCP SDK sends
    (999, [], False),
    (True, [], False),
    ("200", [], False),
    (200, [(b"x-ok", b"a\r\nset-cookie: evil")], False),
])
def test_a_response_start_is_checked_by_value(status: object, headers: object,
                                              sendable: bool) -> None:
    from eve_build.serve.faults import find_response_problem

    assert (find_response_problem(status, headers) is None) is sendable
