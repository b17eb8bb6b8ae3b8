"""MCP completeness (issue 27, item 6) with the official Python SDK client: commands
with named arguments and content parts as prompts, `completion/complete`, the
`skill://{name}` template, and subscriptions announced when a generation swap changes
a subscribed skill; over `eve mcp` (stdio), in process, and at `/mcp` over HTTP."""

from __future__ import annotations

import asyncio
import base64
import subprocess
import textwrap
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

from eve_build.mcp.server import create_mcp_server
from eve_build.runtime import load_agent
from tests.mcp.conftest import SECRETS, eve_command
from tests.mcp.servers import serving
from tests.waiting import stop_process

LEGACY = "legacy"
"""The protocol before 2026-07-28, where `resources/subscribe` lives (the conformance
suite's too); `subscriptions/listen` of the newer protocol is not served yet."""

EXTENSION = '''
    from pydantic import BaseModel, Field

    from eve_build.sdk import ToolResult, define_command, image, resource, text

    PIXEL = bytes.fromhex("89504e470d0a1a0a")


    class Greeting(BaseModel):
        name: str = Field(description="who to greet")
        greeting: str = "Hello"


    class Chart(BaseModel):
        pass


    def greet(args, ctx):
        return f"{args.greeting}, {args.name}!"


    def names(partial):
        return [n for n in ("ada", "alan", "grace") if n.startswith(partial)]


    def chart(args, ctx):
        return [image(PIXEL, "image/png"), text("the chart above"),
                resource("memo://chart", text="120 points", mime_type="text/plain")]


    def report(args, ctx):
        return ToolResult(content=[text(f"report on {args or 'everything'}")])


    def setup(ctx):
        return Spec(commands={
            "greet": define_command(description="Greet someone.", input=Greeting, run=greet,
                                    complete={"name": names, "greeting": ["Hello", "Hi"]}),
            "chart": define_command(description="Draw the chart.", input=Chart, run=chart),
            "report": define_command(description="Report.", run=report, arg_hint="[topic]"),
        })
'''


@pytest.fixture
def extension(tmp_path: Path) -> Path:
    path = tmp_path / "prompts.py"
    path.write_text("from eve_build.sdk import Spec\n" + textwrap.dedent(EXTENSION))
    return path


def talk(server: Any, scenario: Any) -> Any:
    async def main() -> Any:
        async with asyncio.timeout(60), Client(server, mode=LEGACY) as client:
            return await scenario(client)

    return asyncio.run(main())


def test_named_arguments_content_parts_and_completions_as_prompts(
        mcp_app: Path, extension: Path) -> None:
    async def scenario(client: Client) -> dict[str, Any]:
        ref = types.PromptReference(type="ref/prompt", name="greet")
        with pytest.raises(MCPError, match="`name`: Field required"):
            await client.get_prompt("greet", {"greeting": "Hi"})
        return {
            "prompts": {p.name: p for p in (await client.list_prompts()).prompts},
            "greet": await client.get_prompt("greet", {"name": "Ada", "greeting": "Hi"}),
            "chart": await client.get_prompt("chart", {}),
            "report": await client.get_prompt("report", {"args": "sales"}),
            "names": await client.complete(ref, {"name": "name", "value": "a"}),
            "greetings": await client.complete(ref, {"name": "greeting", "value": ""}),
            "undeclared": await client.complete(
                types.PromptReference(type="ref/prompt", name="chart"),
                {"name": "x", "value": ""}),
        }

    with load_agent(mcp_app, environ=SECRETS, extensions=[extension]) as agent:
        got = talk(create_mcp_server(agent, mcp_app), scenario)

    greet = got["prompts"]["greet"]
    assert [(a.name, a.required, a.description) for a in greet.arguments] == [
        ("name", True, "who to greet"), ("greeting", False, "greeting")]
    assert got["prompts"]["chart"].arguments == []
    assert [a.name for a in got["prompts"]["report"].arguments] == ["args"]  # `args: str`
    assert got["greet"].messages[0].content.text == "Hi, Ada!"
    chart = [m.content for m in got["chart"].messages]
    assert [c.type for c in chart] == ["image", "text", "resource"]
    assert base64.b64decode(chart[0].data) == bytes.fromhex("89504e470d0a1a0a")
    assert chart[0].mime_type == "image/png"
    assert (str(chart[2].resource.uri), chart[2].resource.text) == ("memo://chart", "120 points")
    assert got["report"].messages[0].content.text == "report on sales"
    assert got["names"].completion.values == ["ada", "alan"]
    assert got["greetings"].completion.values == ["Hello", "Hi"]
    assert got["undeclared"].completion.values == []


def test_eve_mcp_serves_prompts_completions_and_the_skill_template(
        mcp_app: Path, extension: Path, eve_env: Any, tmp_path: Path) -> None:
    async def scenario(client: Client) -> dict[str, Any]:
        skills = types.ResourceTemplateReference(type="ref/resource", uri="skill://{name}")
        await client.subscribe_resource("skill://onboarding")
        await client.unsubscribe_resource("skill://onboarding")
        return {
            "greet": await client.get_prompt("greet", {"name": "Grace"}),
            "names": await client.complete(types.PromptReference(type="ref/prompt",
                                                                 name="greet"),
                                           {"name": "name", "value": "gr"}),
            "templates": (await client.list_resource_templates()).resource_templates,
            "skills": await client.complete(skills, {"name": "name", "value": "crm__"}),
            "caps": client.server_capabilities,
        }

    command = eve_command("mcp", "--path", str(mcp_app), "-e", str(extension))
    params = StdioServerParameters(command=command[0], args=command[1:], env=eve_env())

    async def main() -> Any:
        with (tmp_path / "err").open("w") as errlog:
            async with asyncio.timeout(90), Client(stdio_client(params, errlog=errlog),
                                                   read_timeout_seconds=60,
                                                   mode=LEGACY) as client:
                return await scenario(client)

    got = asyncio.run(main())

    assert got["greet"].messages[0].content.text == "Hello, Grace!"
    assert got["names"].completion.values == ["grace"]
    assert [t.uri_template for t in got["templates"]] == ["skill://{name}"]
    assert got["skills"].completion.values and all(
        v.startswith("crm__") and "/" not in v for v in got["skills"].completion.values)
    assert got["caps"].completions is not None
    assert got["caps"].resources.subscribe is True


def test_a_subscribed_skill_changed_by_a_generation_swap_is_announced(
        mcp_app: Path) -> None:
    from eve_build.serve.mcp_app import create_app_with_mcp

    skill = mcp_app / "agent/skills/onboarding/SKILL.md"
    before = skill.read_text()
    app = create_app_with_mcp(mcp_app, environ=SECRETS, schedules=False)
    updated: list[str] = []
    arrived = asyncio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            updated.append(str(message.params.uri))
            arrived.set()

    async def scenario(url: str) -> None:
        async with asyncio.timeout(60), Client(f"{url}/mcp", read_timeout_seconds=30,
                                               message_handler=on_message,
                                               mode=LEGACY) as client:
            await client.subscribe_resource("skill://onboarding")
            await client.subscribe_resource("skill://crm__summarize")
            host = app.state.host
            await asyncio.to_thread(host.swap, host.current)  # nothing changed: no notice
            skill.write_text(before + "\nOne more step.\n")
            await asyncio.to_thread(host.swap, host.current)  # `eve dev` after an edit
            await arrived.wait()
            await client.unsubscribe_resource("skill://onboarding")
            skill.write_text(before)
            await asyncio.to_thread(host.swap, host.current)  # unsubscribed: no notice
            await client.send_ping()  # a notice sent before the ping would be here by now

    try:
        with serving(app) as url:
            asyncio.run(scenario(url))
    finally:
        skill.write_text(before)

    assert updated == ["skill://onboarding"]


def test_eve_command_takes_key_value_words(mcp_app: Path, extension: Path,
                                           eve_env: Any) -> None:
    def command(*words: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(eve_command("command", "--path", str(mcp_app), "-e",
                                          str(extension), *words),
                              capture_output=True, text=True, timeout=120, env=eve_env(),
                              check=False)

    done = command("greet", "name=Ada", "greeting=Good morning")
    missing = command("greet", "greeting=Hi")
    stray = command("greet", "Ada", "Lovelace", "x=1")
    chart = command("chart")

    assert (done.returncode, done.stdout.strip()) == (0, "Good morning, Ada!"), done.stderr
    assert missing.returncode == 1 and "`name`: Field required" in missing.stdout + missing.stderr
    assert stray.returncode == 1
    assert "`Ada` is not `key=value`" in stray.stdout + stray.stderr
    assert "Traceback" not in missing.stderr + stray.stderr
    assert chart.returncode == 0 and "the chart above" in chart.stdout
    assert "[image image/png, 8 bytes]" in chart.stdout


def test_eve_dev_announces_a_subscribed_skill_after_its_edit(tmp_path: Path) -> None:
    import os
    import queue
    import shutil
    import signal
    import threading

    from tests.conftest import FIXTURES

    app = tmp_path / "app"
    shutil.copytree(FIXTURES / "conformance", app,
                    ignore=shutil.ignore_patterns(".eve", "__pycache__"))
    skill = app / "agent/skills/greeting/SKILL.md"
    env = {**os.environ, "EVE_HOME": str(tmp_path / "home"), "NO_COLOR": "1"}
    process = subprocess.Popen(eve_command("dev", "--path", str(app), "--port", "0"),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=env)
    lines: queue.Queue[str] = queue.Queue()
    assert process.stdout is not None
    out = process.stdout
    threading.Thread(target=lambda: [lines.put(t.rstrip("\n")) for t in out],
                     daemon=True).start()

    def next_line(prefix: str) -> str:
        while not (line := lines.get(timeout=120)).startswith(prefix):
            pass
        return line

    updated: list[str] = []
    arrived = asyncio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            updated.append(str(message.params.uri))
            arrived.set()

    async def scenario(url: str) -> str:
        async with asyncio.timeout(180), Client(f"{url}/mcp", read_timeout_seconds=60,
                                                message_handler=on_message,
                                                mode=LEGACY) as client:
            await client.subscribe_resource("skill://greeting")
            skill.write_text(skill.read_text() + "\nThen ask how they are.\n")
            await arrived.wait()
            read = await client.read_resource("skill://greeting")
            return str(getattr(read.contents[0], "text", ""))

    try:
        url = next_line("serving on ").split()[2].rstrip(";")
        next_line("generation 1 ready")
        text_after = asyncio.run(scenario(url))
    finally:
        stop_process(process, signal.SIGTERM)

    assert updated == ["skill://greeting"]
    assert "Then ask how they are." in text_after
