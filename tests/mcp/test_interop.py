"""What real MCP clients rely on, driven by the official SDK's client over HTTP and stdio:
`eve serve --approve` runs tools that ask for approval and marks them in `tools/list`;
a `str` result is text, an object `structuredContent` with its JSON beside it;
`resources/templates/list` (the `skill://{name}` template) and `prompts/list` answer
lists."""

from __future__ import annotations

import asyncio
import json
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from mcp import Client

from eve_build.serve import create_app
from tests.mcp.conftest import SECRETS, eve_command, text_of
from tests.mcp.servers import serving

START_TIMEOUT = 60.0


@contextmanager
def eve_serve(app: Path, env: dict[str, str], *flags: str,
              command: str = "serve") -> Iterator[str]:
    """`eve serve --port 0 --json FLAGS` (or `eve dev`) in a subprocess; yields its `/mcp`
    URL once it serves (`eve dev`: once its first generation is ready)."""
    extra = ("--no-access-log",) if command == "serve" else ()
    process = subprocess.Popen(eve_command(command, "--path", str(app), "--port", "0",
                                           "--json", *extra, *flags),
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                               env=env)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()  # the `serving` line, once it listens
        assert line, f"eve {command} ended before it served"
        if command == "dev":
            ready = json.loads(process.stdout.readline())
            assert ready["status"] == "ready", ready
        yield json.loads(line)["url"] + "/mcp"
    finally:
        process.terminate()
        process.wait(START_TIMEOUT)


async def session(url: str) -> dict[str, Any]:
    async with asyncio.timeout(60), Client(url, read_timeout_seconds=30) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        return {
            "tools": tools,
            "create": await client.call_tool("crm__create_contact",
                                             {"name": "Ada", "email": "ada@example.com"}),
            "greet": await client.call_tool("greet", {"name": "ada"}),
            "search": await client.call_tool("crm__search", {"query": "ada"}),
            "templates": (await client.list_resource_templates()).resource_templates,
            "prompts": (await client.list_prompts()).prompts,
        }


def test_eve_serve_approve_runs_and_marks_tools_that_ask_for_approval(
        mcp_app: Path, eve_env: Any) -> None:
    with eve_serve(mcp_app, eve_env(), "--approve") as url:
        got = asyncio.run(session(url))

    create = got["tools"]["crm__create_contact"]
    assert create.meta == {"eve/approval": "always"}
    assert create.annotations is not None and create.annotations.destructive_hint is True
    assert create.annotations.read_only_hint is False
    assert got["tools"]["greet"].meta is None and got["tools"]["greet"].annotations is None
    assert not got["create"].is_error
    assert got["create"].structured_content["created"] is True


def test_eve_dev_approve_too(mcp_app: Path, eve_env: Any) -> None:
    with eve_serve(mcp_app, eve_env(), "--approve", command="dev") as url:
        got = asyncio.run(session(url))

    assert not got["create"].is_error
    assert got["greet"].content[0].text == "Hello, ada"


def test_without_approve_the_refusal_names_the_flag_for_serve(mcp_app: Path) -> None:
    app = create_app(mcp_app, mcp=True, environ=SECRETS, schedules=False)
    with serving(app) as url:
        got = asyncio.run(session(f"{url}/mcp"))

    assert got["create"].is_error
    assert "`eve serve --approve`" in text_of(got["create"])
    assert got["tools"]["crm__create_contact"].meta == {"eve/approval": "always"}


def test_create_app_approve_opts_in(mcp_app: Path) -> None:
    app = create_app(mcp_app, approve=True, environ=SECRETS, schedules=False)
    with serving(app) as url:
        got = asyncio.run(session(f"{url}/mcp"))

    assert not got["create"].is_error


def test_results_are_text_or_structured_content(mcp_app: Path) -> None:
    app = create_app(mcp_app, mcp=True, environ=SECRETS, schedules=False)
    with serving(app) as url:
        got = asyncio.run(session(f"{url}/mcp"))

    greet = got["greet"]
    assert [(b.type, b.text) for b in greet.content] == [("text", "Hello, ada")]
    assert greet.structured_content is None
    search = got["search"]
    assert search.structured_content is not None and "results" in search.structured_content
    assert json.loads(text_of(search)) == search.structured_content
    assert [t.uri_template for t in got["templates"]] == ["skill://{name}"]
    assert got["prompts"] == []


RAW_SESSION = [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize",
     "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "raw", "version": "0"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "prompts/list"},
    {"jsonrpc": "2.0", "id": 3, "method": "resources/templates/list"},
]


def test_eve_mcp_answers_lists_then_ends_on_stdin_eof(mcp_app: Path, eve_env: Any) -> None:
    process = subprocess.Popen(eve_command("mcp", "--path", str(mcp_app)),
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env=eve_env())
    assert process.stdin is not None and process.stdout is not None
    answers: dict[int, Any] = {}
    try:
        for message in RAW_SESSION:
            process.stdin.write(json.dumps(message) + "\n")
            process.stdin.flush()
            if "id" in message:
                answer = json.loads(process.stdout.readline())
                answers[answer["id"]] = answer
        process.stdin.close()  # EOF: the server ends by itself, with 0
        returncode = process.wait(60)
    finally:
        process.kill()
        process.wait(60)
    assert process.stderr is not None
    stderr = process.stderr.read()

    assert returncode == 0, stderr
    assert answers[2]["result"]["prompts"] == []  # a list, never null
    [template] = answers[3]["result"]["resourceTemplates"]  # not -32601
    assert template["uriTemplate"] == "skill://{name}"
    assert "Traceback" not in stderr


def test_eve_mcp_with_stdin_closed_ends_at_once(mcp_app: Path, eve_env: Any) -> None:
    done = subprocess.run(["sh", "-c", 'exec "$@" <&-', "sh",
                           *eve_command("mcp", "--path", str(mcp_app))],
                          capture_output=True, text=True, env=eve_env(), timeout=60)

    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    assert "internal/unexpected" not in done.stderr and "Traceback" not in done.stderr


def test_the_typescript_sdk_client_over_serve_approve_and_stdio(mcp_app: Path,
                                                                eve_env: Any) -> None:
    from tests.mcp.ts_sdk import install_ts_sdk, run_ts_client

    folder = install_ts_sdk()
    env = eve_env()
    with eve_serve(mcp_app, env, "--approve") as url:
        http = run_ts_client(folder, "http", url, env=env)
    stdio = run_ts_client(folder, "stdio", *eve_command("mcp", "--path", str(mcp_app)),
                          env=env)

    for seen in (http, stdio):
        tools: Any = seen["tools"]
        assert tools["crm__create_contact"]["meta"] == {"eve/approval": "always"}
        assert tools["crm__create_contact"]["annotations"]["destructiveHint"] is True
        assert tools["greet"] == {"meta": None, "annotations": None}
        greet: Any = seen["greet"]
        assert greet["content"] == [{"type": "text", "text": "Hello, ada"}]  # not quoted
        assert "structuredContent" not in greet
        search: Any = seen["search"]
        assert "results" in search["structuredContent"]
        assert json.loads(search["content"][0]["text"]) == search["structuredContent"]
        assert seen["prompts"] == {"prompts": []}
        templates: Any = seen["templates"]
        assert [t["uriTemplate"] for t in templates["resourceTemplates"]] == ["skill://{name}"]
    approved: Any = http["create"]
    refused: Any = stdio["create"]  # `eve mcp` ran without --approve
    assert not approved["isError"]
    assert refused["isError"] and "--approve" in refused["content"][0]["text"]
