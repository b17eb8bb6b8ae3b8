"""Self-modification under `eve dev` (the bundled `eve_self` extension): the agent lists,
reads and edits its own sources inside the agent folder, every write approved, paths
confined (`..`, absolute paths and links refused); an accepted edit is rebuilt and served
from the next call, a broken one answers with its diagnostics and the previous
generation keeps answering."""

from __future__ import annotations

import asyncio
import json
import os
import queue
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from mcp import Client

from eve_build.dev.extensions import locate_bundled_extensions
from eve_build.dev.loop import DevSession
from eve_build.runtime.loader import load_agent
from tests.runtime.apps import make_app
from tests.waiting import stop_process

ADD = '''\
from pydantic import BaseModel

from eve_build.sdk import define_tool


class AddInput(BaseModel):
    a: int
    b: int


tool = define_tool(description="Add two numbers.", input=AddInput,
                   execute=lambda input, ctx: {{"sum": input.a + input.b{extra}}})
'''
GREET = ADD.replace("add", "greet").replace("Add two numbers.", "Greet.")


def _app(tmp_path: Path) -> Path:
    root = tmp_path / "app"
    root.mkdir()
    make_app(root, [], {"tools/greet.py": GREET.format(extra="")})
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("KEY = 'do not touch'\n")
    (root / "agent" / "shared").symlink_to(outside, target_is_directory=True)
    return root


def _text(result: Any) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


def test_paths_are_confined_and_writes_ask_for_approval(tmp_path: Path) -> None:
    root = _app(tmp_path)
    session = DevSession(root, bundled=locate_bundled_extensions())
    assert session.build().ok

    with load_agent(root, extensions=session.loaded_extensions) as agent:
        listed = agent.call_tool("agent_files", {}).value
        read = agent.call_tool("agent_read", {"path": "tools/greet.py"})
        up = agent.call_tool("agent_read", {"path": "../outside/secret.py"})
        absolute = agent.call_tool("agent_read", {"path": str(tmp_path / "outside/secret.py")})
        linked = agent.call_tool("agent_read", {"path": "shared/secret.py"})
        unapproved = agent.call_tool("agent_write", {"path": "tools/x.py", "text": "x = 1\n"})
        linked_write = agent.call_tool("agent_write", {"path": "shared/secret.py",
                                                       "text": "KEY = 'changed'\n"},
                                       approver=lambda request: True)

    assert listed == {"folder": "agent", "files": ["instructions.md", "tools/greet.py"]}
    assert read.ok and "Greet." in read.value
    assert up.status == "failed" and "leaves the agent folder" in (up.error or "")
    assert absolute.status == "failed" and "is absolute" in (absolute.error or "")
    assert linked.status == "failed" and "`shared` is a symbolic link" in (linked.error or "")
    assert unapproved.status == "refused" and "needs approval (always)" in (
        unapproved.error or "")
    assert linked_write.status == "failed" and "symbolic link" in (linked_write.error or "")
    assert (tmp_path / "outside/secret.py").read_text() == "KEY = 'do not touch'\n"
    assert not (root / "agent/tools/x.py").exists()


@contextmanager
def _eve_dev(root: Path, tmp_path: Path, *flags: str,
             env: dict[str, str] | None = None) -> Iterator[str]:
    """`eve dev --json --port 0 FLAGS` in a subprocess; yields its URL once it serves."""
    env = {**os.environ, "EVE_HOME": str(tmp_path / "home"), "NO_COLOR": "1", **(env or {})}
    process = subprocess.Popen(
        [sys.executable, "-m", "eve_build", "dev", "--json", "--port", "0", "--path", str(root),
         *flags], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert process.stdout is not None
        lines: queue.Queue[str] = queue.Queue()
        out = process.stdout
        threading.Thread(target=lambda: [lines.put(text) for text in out], daemon=True).start()
        events = [json.loads(lines.get(timeout=60)) for _ in range(2)]
        assert any(e["status"] == "ready" for e in events), events
        yield next(e["url"] for e in events if e["status"] == "serving")
    finally:
        stop_process(process, signal.SIGTERM)


def test_an_approved_edit_is_served_next_and_a_broken_one_is_kept_out(tmp_path: Path) -> None:
    root = _app(tmp_path)

    async def scenario(url: str) -> dict[str, Any]:
        async with asyncio.timeout(240), Client(f"{url}/mcp",
                                                read_timeout_seconds=200) as client:
            seen: dict[str, Any] = {}
            seen["before"] = [t.name for t in (await client.list_tools()).tools]
            seen["escape"] = await client.call_tool(
                "agent_write", {"path": "../evil.py", "text": "x = 1\n"})
            seen["good"] = await client.call_tool(
                "agent_write", {"path": "tools/add.py", "text": ADD.format(extra="")})
            seen["after"] = [t.name for t in (await client.list_tools()).tools]
            seen["added"] = await client.call_tool("add", {"a": 2, "b": 3})
            seen["broken"] = await client.call_tool(
                "agent_write", {"path": "tools/add.py", "text": "tool = define_tool(\n"})
            seen["still"] = await client.call_tool("add", {"a": 2, "b": 3})
            seen["fixed"] = await client.call_tool(
                "agent_write", {"path": "tools/add.py",
                                "text": ADD.format(extra=', "v": 2')})
            seen["new"] = await client.call_tool("add", {"a": 2, "b": 3})
            return seen

    with _eve_dev(root, tmp_path, "--approve") as url:
        seen = asyncio.run(scenario(url))

    assert "agent_write" in seen["before"] and "add" not in seen["before"]
    assert seen["escape"].is_error and "leaves the agent folder" in _text(seen["escape"])
    assert not (tmp_path / "evil.py").exists()

    good = seen["good"].structured_content
    assert (good["rebuilt"], good["generation"], good["serving"]) == (True, 2, 2)
    assert "add" in seen["after"]
    assert seen["added"].structured_content == {"sum": 5}

    broken = _text(seen["broken"])
    assert seen["broken"].is_error
    assert "generation 3 failed to build; generation 2 keeps running" in broken
    assert "agent/tools/add.py:1" in broken
    assert seen["still"].structured_content == {"sum": 5}  # the previous generation answers

    assert seen["fixed"].structured_content["generation"] == 4
    assert seen["new"].structured_content == {"sum": 5, "v": 2}


def test_a_session_under_eve_dev_is_offered_the_tools_and_kept_inside(tmp_path: Path) -> None:
    """An HTTP session of `eve dev`, its model the scripted chat-completions server: the
    model reads its own tool, a path out of the folder fails with the reason, and a
    write is a yes/no question to the HTTP client (a JSON message: 409 with it); answered
    no, the message sent again refuses the write and leaves the file untouched."""
    import httpx

    from tests.session.engine.fake_openai import run_fake

    root = _app(tmp_path)
    with run_fake() as (fake_url, script):
        env = {"OPENAI_BASE_URL": fake_url, "OPENAI_API_KEY": "test",
               "EVE_MODEL": "openai-chat:scripted", "EVE_MODEL_RETRIES": "0",
               "EVE_MODEL_TIMEOUT": "60"}
        with _eve_dev(root, tmp_path, env=env) as url, httpx.Client(base_url=url,
                                                                    timeout=120) as client:
            session = client.post("/.eve/v1/sessions").json()["id"]
            steps = [
                {"tools": [{"name": "agent_read", "arguments": {"path": "tools/greet.py"}}]},
                {"tools": [{"name": "agent_read",
                            "arguments": {"path": "../outside/secret.py"}}]},
                {"tools": [{"name": "agent_write",
                            "arguments": {"path": "tools/greet.py", "text": "x = 1\n"}}]},
                {"text": "Done."}]
            script.steps = list(steps)
            messages = f"/.eve/v1/sessions/{session}/messages"
            asked = client.post(messages, json={"text": "Look at yourself."})
            assert asked.status_code == 409, asked.text
            question = asked.json()["error"]["input"]
            assert question["tool"] == "agent_write"
            assert list(question["schema"]["properties"]) == ["approve"]
            answered = client.post(f"/.eve/v1/sessions/{session}/inputs/{question['id']}",
                                   json={"approve": False})
            assert answered.status_code == 200, answered.text
            script.steps = list(steps)
            reply = client.post(messages, json={"text": "Look at yourself."})
            offered = {tool["function"]["name"] for tool in script.requests[0]["tools"]}
    assert reply.status_code == 200, reply.text
    read, escape, write = reply.json()["toolCalls"]
    assert {"agent_files", "agent_read", "agent_write", "greet"} <= offered
    assert read["status"] == "ok" and "Greet." in read["result"]
    assert escape["status"] == "failed" and "leaves the agent folder" in escape["reason"]
    assert write["status"] == "refused" and "not approved" in write["reason"]
    assert "Greet." in (root / "agent/tools/greet.py").read_text()


def test_a_session_with_the_approval_answered_edits_the_served_agent(tmp_path: Path) -> None:
    """`eve run --approve -e eve_self.py` (a session whose approvals are answered, its model
    the scripted server) beside a serving `eve dev`: the approved write is rebuilt by the
    dev loop and the dev server's next HTTP session turn calls the new tool; a broken
    write answers the model with the diagnostics and the previous generation answers."""
    import httpx

    from eve_build.dev.extensions import BUNDLED_FOLDER
    from tests.session.engine.fake_openai import run_fake

    root = _app(tmp_path)
    self_edit = str(BUNDLED_FOLDER / "eve_self.py")
    with run_fake() as (fake_url, script):
        env = {"OPENAI_BASE_URL": fake_url, "OPENAI_API_KEY": "test",
               "EVE_MODEL": "openai-chat:scripted", "EVE_MODEL_RETRIES": "0",
               "EVE_MODEL_TIMEOUT": "60"}
        full = {**os.environ, "EVE_HOME": str(tmp_path / "home"), "NO_COLOR": "1", **env}

        def eve_run(text: str, write: dict[str, str]) -> dict[str, Any]:
            script.steps = [{"tools": [{"name": "agent_write", "arguments": write}]},
                            {"text": "Edited."}]
            done = subprocess.run(
                [sys.executable, "-m", "eve_build", "run", text, "--approve", "--json",
                 "-e", self_edit, "--path", str(root)],
                capture_output=True, text=True, timeout=240, check=False, env=full)
            assert "Traceback" not in done.stderr, done.stderr
            data: dict[str, Any] = json.loads(done.stdout)
            return data

        def add_in_a_session(client: httpx.Client) -> dict[str, Any] | None:
            """The `add` call of a new session's turn; None when `add` was not offered."""
            session = client.post("/.eve/v1/sessions").json()["id"]
            asked = len(script.requests)
            script.steps = [{"tools": [{"name": "add", "arguments": {"a": 2, "b": 3}}]},
                            {"text": "Five."}]
            reply = client.post(f"/.eve/v1/sessions/{session}/messages",
                                json={"text": "2+3?"})
            assert reply.status_code == 200, reply.text
            offered = {t["function"]["name"] for t in script.requests[asked]["tools"]}
            if "add" not in offered:
                return None
            calls: list[dict[str, Any]] = reply.json()["toolCalls"]
            return calls[0]

        with _eve_dev(root, tmp_path, env=env) as url, httpx.Client(base_url=url,
                                                                    timeout=120) as client:
            before = add_in_a_session(client)
            good = eve_run("add a tool", {"path": "tools/add.py", "text": ADD.format(extra="")})
            added = add_in_a_session(client)
            broken = eve_run("break it", {"path": "tools/add.py",
                                          "text": "tool = define_tool(\n"})
            still = add_in_a_session(client)

    assert before is None  # no such tool yet
    [write] = good["toolCalls"]
    assert write["status"] == "ok", write
    assert (write["result"]["rebuilt"], write["result"]["generation"]) == (True, 2)
    assert added is not None and added["status"] == "ok" and added["result"] == {"sum": 5}
    [failed] = broken["toolCalls"]
    assert failed["status"] == "failed"
    assert "generation 3 failed to build; generation 2 keeps running" in failed["reason"]
    assert "agent/tools/add.py:1" in failed["reason"]
    assert still is not None and still["status"] == "ok" and still["result"] == {"sum": 5}
