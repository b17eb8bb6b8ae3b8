"""The MCP client answers what a tool asks (fixtures/apps/asks-the-client): `ctx.ask` and
approvals by elicitation, `ctx.sample` by sampling, `ctx.log` as log notifications filtered
by `logging/setLevel`, numeric progress; driven with the official SDK's `ClientSession`
against `eve mcp` (stdio) and `eve serve`'s `/mcp`, both real subprocesses."""

from __future__ import annotations

import asyncio
import os
import queue
import signal
import subprocess
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import Client, StdioServerParameters, types
from mcp.client.session import ClientSession
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from eve_build.consumer.build import build_agent
from tests.conftest import FIXTURES, copy_fixture_tree
from tests.mcp.conftest import eve_command, text_of

APP = FIXTURES / "apps/asks-the-client"
TRANSPORTS = ["stdio", "http"]
Elicit = Callable[[Any, types.ElicitRequestParams], Awaitable[Any]]
Sample = Callable[[Any, types.CreateMessageRequestParams], Awaitable[Any]]


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = copy_fixture_tree(APP, tmp_path_factory.mktemp("asks") / "app")
    build_agent(root)
    return root


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    home = tmp_path_factory.mktemp("eve-home")
    return {**os.environ, "EVE_HOME": str(home), "NO_COLOR": "1"}


@pytest.fixture(scope="module")
def served(app: Path, env: dict[str, str]) -> Iterator[str]:
    """`eve serve` of the app on a port the kernel picked: its `/mcp` URL."""
    process = subprocess.Popen(eve_command("serve", "--path", str(app), "--port", "0"),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=env)
    try:
        assert process.stdout is not None
        lines: queue.Queue[str] = queue.Queue()
        out = process.stdout
        threading.Thread(target=lambda: [lines.put(text) for text in out], daemon=True).start()
        line = lines.get(timeout=60)
        assert line.startswith("serving on http://127.0.0.1:"), line
        yield f"http://127.0.0.1:{int(line.split()[2].rsplit(':', 1)[1])}/mcp"
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            stderr = process.communicate(timeout=60)[1]
        except subprocess.TimeoutExpired:
            process.kill()
            stderr = process.communicate(timeout=60)[1]
        assert "Traceback" not in stderr, stderr


@pytest.fixture(params=TRANSPORTS)
def connect(request: pytest.FixtureRequest, app: Path, env: dict[str, str],
            tmp_path: Path) -> Callable[..., Any]:
    """`connect(**callbacks)`: a `ClientSession` (the handshake, no 2026-07-28 probe) to
    `eve mcp` over stdio or to `eve serve`'s `/mcp`, as the test is parametrized."""
    transport = request.param
    url = request.getfixturevalue("served") if transport == "http" else ""

    @asynccontextmanager
    async def session(**callbacks: Any) -> AsyncIterator[ClientSession]:
        async with AsyncExitStack() as stack:
            if transport == "stdio":
                command = eve_command("mcp", "--path", str(app))
                params = StdioServerParameters(command=command[0], args=command[1:], env=env)
                errlog = stack.enter_context((tmp_path / "stderr").open("w"))
                read, write = await stack.enter_async_context(
                    stdio_client(params, errlog=errlog))
            else:
                read, write = await stack.enter_async_context(streamable_http_client(url))
            client = await stack.enter_async_context(
                ClientSession(read, write, read_timeout_seconds=60, **callbacks))
            await client.initialize()
            yield client

    return session


def run(scenario: Callable[[], Awaitable[Any]]) -> Any:
    async def bounded() -> Any:
        async with asyncio.timeout(120):
            return await scenario()

    return asyncio.run(bounded())


def answering(*answers: types.ElicitResult) -> tuple[Elicit, list[types.ElicitRequestParams]]:
    """An elicitation callback giving `answers` in turn, and the questions it saw."""
    asked: list[types.ElicitRequestParams] = []
    pending = list(answers)

    async def elicit(_context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params)
        return pending.pop(0)

    return elicit, asked


def test_ctx_ask_is_an_elicitation(connect: Any) -> None:
    elicit, asked = answering(
        types.ElicitResult(action="accept", content={"name": "Ada", "age": 36}),
        types.ElicitResult(action="decline"),
        types.ElicitResult(action="cancel"),
        types.ElicitResult(action="accept", content={"name": "Ada", "age": "old"}))

    async def scenario() -> list[types.CallToolResult]:
        async with connect(elicitation_callback=elicit) as client:
            return [await client.call_tool("sign_up", {"plan": "pro"}) for _ in range(4)]

    accepted, declined, cancelled, invalid = run(scenario)

    assert accepted.structured_content == {"outcome": "signed up", "name": "Ada", "age": 36}
    assert declined.structured_content == {"outcome": "declined"}
    assert cancelled.structured_content == {"outcome": "cancelled"}
    assert invalid.is_error
    assert ("the answer to `Who is signing up for pro?` does not fit the question: age: "
            "Input should be a valid integer") in text_of(invalid)
    question = asked[0]
    assert isinstance(question, types.ElicitRequestFormParams)
    assert question.message == "Who is signing up for pro?"
    assert question.requested_schema == {
        "type": "object", "required": ["name", "age"], "properties": {
            "name": {"type": "string", "title": "Name", "description": "Your full name"},
            "age": {"type": "integer", "title": "Age", "description": "Your age in years",
                    "minimum": 0}}}


def test_approval_is_a_yes_no_elicitation(connect: Any) -> None:
    elicit, asked = answering(types.ElicitResult(action="accept", content={"approve": True}),
                              types.ElicitResult(action="accept", content={"approve": False}),
                              types.ElicitResult(action="decline"))

    async def scenario() -> list[types.CallToolResult]:
        async with connect(elicitation_callback=elicit) as client:
            return [await client.call_tool("wipe", {"what": "disk"}) for _ in range(3)]

    yes, no, declined = run(scenario)

    assert not yes.is_error and text_of(yes) == "wiped disk"
    assert no.is_error and text_of(no) == "`wipe` refused: not approved"
    assert declined.is_error and text_of(declined) == "`wipe` refused: not approved"
    assert asked[0].message == 'Allow `wipe` to run with {"what": "disk"}? (approval: always)'
    assert isinstance(asked[0], types.ElicitRequestFormParams)
    assert asked[0].requested_schema["properties"]["approve"]["type"] == "boolean"


def test_ctx_sample_is_a_sampling_request(connect: Any) -> None:
    seen: list[types.CreateMessageRequestParams] = []

    async def sample(_context: Any, params: types.CreateMessageRequestParams) -> Any:
        seen.append(params)
        if len(seen) == 1:
            return types.CreateMessageResult(
                role="assistant", model="client-model",
                content=types.TextContent(type="text", text="short and sweet"))
        return types.ErrorData(code=-1, message="User rejected sampling request")

    async def scenario() -> list[types.CallToolResult]:
        async with connect(sampling_callback=sample) as client:
            return [await client.call_tool("summarize", {"text": "a long text"})
                    for _ in range(2)]

    answered, refused = run(scenario)

    assert not answered.is_error and text_of(answered) == "summary: short and sweet"
    request = seen[0]
    assert request.system_prompt == "You are terse."
    assert request.max_tokens == 20
    assert [(m.role, m.content.text) for m in request.messages  # type: ignore[union-attr]
            ] == [("user", "Summarize in three words: a long text")]
    assert refused.is_error
    assert ("`summarize` asked the MCP client's model, and the client refused: User "
            "rejected sampling request") in text_of(refused)


@pytest.mark.filterwarnings("ignore:The logging capability is deprecated")
def test_logs_follow_set_level_and_progress_is_numeric(connect: Any) -> None:
    logs: list[types.LoggingMessageNotificationParams] = []
    progress: list[tuple[float, float | None, str | None]] = []

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        logs.append(params)

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, total, message))

    async def scenario() -> dict[str, Any]:
        async with connect(logging_callback=on_log) as client:
            everything = await client.call_tool("count", {"upto": 1})
            every_level = [(entry.level, entry.data) for entry in logs]
            logs.clear()
            await client.set_logging_level("info")
            counted = await client.call_tool("count", {"upto": 2},
                                             progress_callback=on_progress)
            filtered = [(entry.logger, entry.level, entry.data) for entry in logs]
            await client.set_logging_level("error")
            logs.clear()
            quiet = await client.call_tool("count", {"upto": 1})
            bad = await client.call_tool("count", {"level": "loud"})
            return {"everything": everything, "every_level": every_level,
                    "counted": counted, "filtered": filtered, "quiet": (quiet, list(logs)),
                    "bad": bad}

    got = run(scenario)

    # before any logging/setLevel the client gets every level (docs/mcp.md)
    assert got["every_level"] == [("debug", "starting to count"), ("info", "counted 1"),
                                  ("warning", "done counting")]
    assert text_of(got["counted"]) == "2"
    assert got["filtered"] == [("count", "info", "counted 1"), ("count", "info", "counted 2"),
                               ("count", "warning", "done counting")]
    assert progress == [(1.0, 2.0, "step 1 of 2"), (2.0, 2.0, "step 2 of 2")]
    assert got["quiet"][1] == []
    assert got["bad"].is_error
    assert "`loud` is not a log level: use one of debug, info" in text_of(got["bad"])


def test_a_client_without_the_capabilities_gets_the_reasons(connect: Any) -> None:
    async def scenario() -> list[types.CallToolResult]:
        async with connect() as client:
            return [await client.call_tool("sign_up", {}),
                    await client.call_tool("summarize", {"text": "t"}),
                    await client.call_tool("wipe", {"what": "disk"})]

    ask, sample, approval = run(scenario)

    assert ask.is_error and sample.is_error and approval.is_error
    assert ("`sign_up` asked: Who is signing up for basic?: there is no one to answer here "
            "(this MCP client did not declare the `elicitation` capability") in text_of(ask)
    assert ("`summarize` asked a model: there is no one to answer here (this MCP client "
            "did not declare the `sampling` capability") in text_of(sample)
    assert "`--model`, `EVE_MODEL`" in text_of(sample)
    assert "`wipe` refused: it needs approval (always)" in text_of(approval)
    assert "did not declare the `elicitation` capability" in text_of(approval)
    assert "`eve mcp --approve`" in text_of(approval)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_2026_client_is_asked_through_input_required(transport: str, app: Path,
                                                       env: dict[str, str],
                                                       request: pytest.FixtureRequest) -> None:
    """The SDK's `Client` speaks 2026-07-28 when the server does: no back-channel, so the
    call answers `input_required` and the client's retry carries the answers."""
    elicit, asked = answering(types.ElicitResult(action="accept",
                                                 content={"name": "Grace", "age": 85}),
                              types.ElicitResult(action="accept", content={"approve": True}))

    async def sample(_context: Any, _params: types.CreateMessageRequestParams) -> Any:
        return types.CreateMessageResult(role="assistant", model="m",
                                         content=types.TextContent(type="text", text="ok"))

    if transport == "stdio":
        command = eve_command("mcp", "--path", str(app))
        server: Any = StdioServerParameters(command=command[0], args=command[1:], env=env)
    else:
        server = request.getfixturevalue("served")

    logs: list[tuple[str, Any]] = []

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        logs.append((params.level, params.data))

    async def scenario() -> tuple[Any, ...]:
        async with Client(server, read_timeout_seconds=60, elicitation_callback=elicit,
                          sampling_callback=sample, logging_callback=on_log,
                          log_level="info") as client:
            version = client.session.protocol_version  # type: ignore[attr-defined]
            return (version, await client.call_tool("sign_up", {}),
                    await client.call_tool("summarize", {"text": "t"}),
                    await client.call_tool("wipe", {"what": "disk"}),
                    await client.call_tool("count", {"upto": 1}))

    version, signed, summary, wiped, counted = run(scenario)

    assert version == "2026-07-28"
    assert signed.structured_content == {"outcome": "signed up", "name": "Grace", "age": 85}
    assert text_of(summary) == "summary: ok"
    assert text_of(wiped) == "wiped disk"
    assert len(asked) == 2
    assert text_of(counted) == "1"  # the request's own log level (`_meta`) filters its logs
    assert logs == [("info", "Grace signed up"), ("info", "counted 1"),
                    ("warning", "done counting")]


def test_an_unknown_log_level_is_invalid_params(served: str) -> None:
    """The SDK client cannot send one; a raw JSON-RPC client can."""
    headers = {"Accept": "application/json, text/event-stream"}
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"}}}
    with httpx.Client(timeout=60) as http:
        opened = http.post(served, json=initialize, headers=headers)
        session = {"mcp-session-id": opened.headers["mcp-session-id"],
                   "mcp-protocol-version": "2025-06-18"}
        http.post(served, json={"jsonrpc": "2.0", "method": "notifications/initialized"},
                  headers={**headers, **session})
        answered = http.post(served, json={"jsonrpc": "2.0", "id": 2,
                                           "method": "logging/setLevel",
                                           "params": {"level": "loud"}},
                             headers={**headers, **session})
        good = http.post(served, json={"jsonrpc": "2.0", "id": 3, "method": "logging/setLevel",
                                       "params": {"level": "notice"}},
                         headers={**headers, **session})

    assert '"code":-32602' in answered.text.replace(" ", "")
    assert '"result":{}' in good.text.replace(" ", "")
    assert "logging" in opened.text  # the capability is declared


def test_a_2026_retry_continues_its_call_once(app: Path, env: dict[str, str]) -> None:
    """The `requestState` of a waiting call is good for one retry: the answer wakes the
    tool; the same state again, or one eve never gave, is INVALID_PARAMS."""
    from mcp.shared.exceptions import MCPError

    command = eve_command("mcp", "--path", str(app))
    server = StdioServerParameters(command=command[0], args=command[1:], env=env)

    async def elicit(_context: Any, _params: Any) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content={"name": "Ada", "age": 36})

    async def scenario() -> dict[str, Any]:
        async with Client(server, read_timeout_seconds=60,
                          elicitation_callback=elicit) as client:
            session = client.session
            first = await session.call_tool("sign_up", {}, allow_input_required=True)
            assert isinstance(first, types.InputRequiredResult)
            assert first.input_requests is not None and first.request_state is not None
            [(key, question)] = first.input_requests.items()
            answer = {key: types.ElicitResult(action="accept",
                                              content={"name": "Ada", "age": 36})}
            try:  # another tool cannot continue it (and the call stays parked)
                await session.call_tool("summarize", {"text": "t"}, input_responses=answer,
                                        request_state=first.request_state)
                other = ""
            except MCPError as exc:
                other = exc.error.message
            done = await session.call_tool("sign_up", {}, input_responses=answer,
                                           request_state=first.request_state)
            errors = []
            for state in (first.request_state, "made-up"):
                try:
                    await session.call_tool("sign_up", {}, input_responses=answer,
                                            request_state=state)
                except MCPError as exc:
                    errors.append((exc.error.code, exc.error.message))
            return {"question": question, "done": done, "errors": errors, "other": other}

    got = run(scenario)

    assert isinstance(got["question"], types.ElicitRequest)
    assert got["question"].params.message == "Who is signing up for basic?"
    assert got["done"].structured_content == {"outcome": "signed up", "name": "Ada", "age": 36}
    assert [code for code, _ in got["errors"]] == [types.INVALID_PARAMS] * 2
    assert all("unknown or expired requestState" in text for _, text in got["errors"])
    assert got["other"] == "this requestState continues `sign_up`, not `summarize`"


def test_a_command_asks_under_prompts_get(app: Path, env: dict[str, str]) -> None:
    """A local extension's command runs when its prompt is got: it may ask and log too."""
    command = eve_command("mcp", "--path", str(app), "-e", str(APP / "local/greeter.py"))
    server = StdioServerParameters(command=command[0], args=command[1:], env=env)
    elicit, asked = answering(types.ElicitResult(action="accept", content={"name": "Ada"}))
    logs: list[types.LoggingMessageNotificationParams] = []

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        logs.append(params)

    async def scenario() -> types.GetPromptResult:
        async with AsyncExitStack() as stack:
            read, write = await stack.enter_async_context(stdio_client(server))
            client = await stack.enter_async_context(ClientSession(
                read, write, read_timeout_seconds=60, elicitation_callback=elicit,
                logging_callback=on_log))
            await client.initialize()
            return await client.get_prompt("greet", {"args": "again"})

    shown = run(scenario)

    assert shown.messages[0].content.text == "Hello, Ada again!"  # type: ignore[union-attr]
    assert asked[0].message == "What is your name?"
    assert [(entry.level, entry.data) for entry in logs] == [("notice", "greeting Ada")]


def test_an_invalid_input_timeout_stops_eve_mcp_before_it_serves(app: Path,
                                                                 env: dict[str, str]) -> None:
    done = subprocess.run(eve_command("mcp", "--path", str(app)), input="", text=True,
                          capture_output=True, timeout=120,
                          env={**env, "EVE_INPUT_TIMEOUT": "nan"})

    assert done.returncode == 1, done.stderr
    assert ("error setting/value-invalid: the environment variable EVE_INPUT_TIMEOUT must be "
            "a number of seconds") in done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""


def test_once_is_remembered_per_connection(served: str) -> None:
    """`once()` over `/mcp`: each client's user is asked once; one client's answer is not
    another's."""
    elicit, asked = answering(types.ElicitResult(action="accept", content={"approve": True}),
                              types.ElicitResult(action="accept", content={"approve": False}))

    async def connection() -> list[str]:
        async with AsyncExitStack() as stack:
            read, write = await stack.enter_async_context(streamable_http_client(served))
            client = await stack.enter_async_context(ClientSession(
                read, write, read_timeout_seconds=60, elicitation_callback=elicit))
            await client.initialize()
            return [text_of(await client.call_tool("reset", {})) for _ in range(2)]

    async def scenario() -> tuple[list[str], list[str]]:
        return await connection(), await connection()

    first, second = run(scenario)

    assert first == ["reset", "reset"]  # asked once, then remembered
    assert second == ["`reset` refused: not approved",  # asked again: no, and kept
                      "`reset` refused: not approved earlier in this session (approval: once)"]
    assert len(asked) == 2
