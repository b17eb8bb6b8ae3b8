"""The agent the session tests run, compiled once, and the scripted model server.

Agent: tools `add` (blocked by the hook `guard` when `a` is 13), `wipe` (asks for
approval every time) and `book` (asks the person for `name`, `seats`, `meal`), the
skill `greet`, the subagent `helper` (tool `shout`). The local extension `talk`
(passed with `-e`) answers `ping` itself, has `/notes`, publishes an event, sends a
custom message and queues a user message from its tool `remember`, and writes every
event it observes to `events.jsonl`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from eve_build.consumer.build import build_agent
from tests.runtime.apps import make_app
from tests.session.engine.fake_openai import Script, run_fake

ADD = '''\
from pydantic import BaseModel

from eve_build.sdk import define_tool


class AddInput(BaseModel):
    a: int
    b: int


tool = define_tool(description="Add two numbers.", input=AddInput,
                   execute=lambda input, ctx: {"sum": input.a + input.b})
'''
WIPE = '''\
from pydantic import BaseModel

from eve_build.sdk import define_tool
from eve_build.sdk.approval import always


class WipeInput(BaseModel):
    what: str


tool = define_tool(description="Wipe something.", input=WipeInput, approval=always(),
                   execute=lambda input, ctx: {"wiped": input.what})
'''
GUARD = '''\
from eve_build.sdk import block, define_hook


def check(event, ctx):
    if event.tool == "add" and event.arguments.get("a") == 13:
        return block("13 is unlucky")
    return None


hook = define_hook(events={"action.call": check})
'''
SHOUT = '''\
from pydantic import BaseModel

from eve_build.sdk import define_tool


class ShoutInput(BaseModel):
    text: str


tool = define_tool(description="Shout.", input=ShoutInput,
                   execute=lambda input, ctx: {"loud": input.text.upper()})
'''
TALK = '''\
import json
from pathlib import Path

from pydantic import BaseModel

from eve_build.sdk import Spec, define_command, define_tool, handled

LOG = Path(__file__).with_name("events.jsonl")


class RememberInput(BaseModel):
    text: str


def setup(ctx):
    with LOG.open("a") as log:
        log.write(json.dumps({"setup": len(ctx.entries)}) + "\\n")

    def observe(event, _ctx):
        with LOG.open("a") as log:
            log.write(json.dumps({"event": event.name, "text": event.text,
                                  "data": event.data, "model": ctx.model},
                                 default=str) + "\\n")

    def received(event, _ctx):
        return handled("pong") if event.text == "ping" else None

    def remember(input, tool_ctx):
        tool_ctx.append_entry({"text": input.text})
        ctx.publish("remembered", {"text": input.text})
        ctx.send_custom_message(f"kept {input.text}", "note", {"n": len(ctx.entries)})
        if input.text == "twice":
            ctx.send_user_message("and once more")
        return {"kept": len(ctx.entries)}

    return Spec(tools={"remember": define_tool(description="Remember a text.",
                                               input=RememberInput, execute=remember)},
                commands={"notes": define_command(
                    description="Show notes",
                    run=lambda args, c: ", ".join(e["text"] for e in c.entries) or "none")},
                hooks={"message.received": received},
                events={"*": observe})
'''
BOOK = '''\
import enum

from pydantic import BaseModel, Field

from eve_build.sdk import Declined, define_tool


class Meal(enum.Enum):
    VEG = "veg"
    FISH = "fish"


class BookInput(BaseModel):
    what: str


class Details(BaseModel):
    name: str = Field(description="who travels")
    seats: int = Field(2, description="how many seats")
    meal: Meal = Meal.VEG


async def run(input, ctx):
    try:
        got = await ctx.ask(f"Booking {input.what}: the details?", schema=Details)
    except Declined:
        return {"booked": False}
    return {"booked": True, "name": got.name, "seats": got.seats, "meal": got.meal.value}


tool = define_tool(description="Book a trip.", input=BookInput, execute=run)
'''
SKILL = "---\ndescription: Greet someone warmly.\n---\nSay hello with the person's name.\n"
FILES = {
    "tools/add.py": ADD, "tools/wipe.py": WIPE, "tools/book.py": BOOK, "hooks/guard.py": GUARD,
    "skills/greet.md": SKILL,
    "subagents/helper/agent.py": ("from eve_build.sdk import define_agent\n\n"
                                  'agent = define_agent(description="Makes text loud")\n'),
    "subagents/helper/instructions.md": "You are the helper.\n",
    "subagents/helper/tools/shout.py": SHOUT,
}


@pytest.fixture(scope="session")
def built_app(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("session-app") / "app"
    root.mkdir()
    make_app(root, [], FILES)
    build_agent(root)
    return root


@pytest.fixture
def app(built_app: Path, tmp_path: Path) -> Path:
    """A copy of the built agent for one test, with the local extension `talk` beside it."""
    root = tmp_path / "app"
    shutil.copytree(built_app, root, symlinks=True)
    (root / "ext").mkdir()
    (root / "ext/talk.py").write_text(TALK)
    return root


@pytest.fixture(scope="session")
def fake() -> Iterator[tuple[str, Script]]:
    with run_fake() as server:
        yield server


@pytest.fixture
def model_env(fake: tuple[str, Script], eve_home: Path) -> dict[str, str]:
    url, script = fake
    script.steps = []
    script.requests.clear()
    script.streams = True
    # A generous model timeout: the fake answers at once, so a request that must succeed
    # never meets it on a busy machine; the timeout tests set their own, shorter one.
    return {**os.environ, "OPENAI_BASE_URL": url, "OPENAI_API_KEY": "test",
            "EVE_MODEL_RETRIES": "0", "EVE_MODEL_TIMEOUT": "60", "EVE_HOME": str(eve_home),
            "NO_COLOR": "1"}


def eve(app: Path, env: dict[str, str], *args: str, timeout: float = 60
        ) -> subprocess.CompletedProcess[str]:
    """`eve ARGS --path APP -e talk.py` in a subprocess."""
    return subprocess.run([sys.executable, "-m", "eve_build", *args, "--path", str(app),
                           "-e", str(app / "ext/talk.py")], env=env, capture_output=True,
                          text=True, timeout=timeout, check=False)


def events(app: Path) -> list[dict[str, Any]]:
    path = app / "ext/events.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]
