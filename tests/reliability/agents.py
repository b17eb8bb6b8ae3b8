"""A compiled agent whose own tools misbehave on purpose: hang, cancel, print, return non-JSON."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.runtime.apps import compile_app, make_app

HEAD = """\
import asyncio, sys, threading, time
from pydantic import BaseModel
from eve_build.sdk import define_tool

class Nothing(BaseModel):
    pass

"""

TOOLS = {
    "hang": """
def execute(input, ctx):
    threading.Event().wait()  # never returns

tool = define_tool(description="Hangs.", input=Nothing, execute=execute, timeout=0.5)
""",
    "hang_default": """
def execute(input, ctx):
    threading.Event().wait()

tool = define_tool(description="Hangs, with the default timeout.", input=Nothing,
                   execute=execute)
""",
    "sleepy": """
async def execute(input, ctx):
    await asyncio.sleep(3600)

tool = define_tool(description="Sleeps.", input=Nothing, execute=execute, timeout=0.5)
""",
    "blocker": """
async def execute(input, ctx):
    time.sleep(3600)  # sync sleep inside async def: the event loop itself is stuck

tool = define_tool(description="Blocks the loop.", input=Nothing, execute=execute, timeout=0.5)
""",
    "cancelled": """
async def execute(input, ctx):
    raise asyncio.CancelledError()

tool = define_tool(description="Cancels itself.", input=Nothing, execute=execute)
""",
    "bad_str": """
class Weird(Exception):
    def __str__(self):
        raise RuntimeError("no message for you")

def execute(input, ctx):
    raise Weird()

tool = define_tool(description="Raises an unprintable error.", input=Nothing, execute=execute)
""",
    "chatty": """
def execute(input, ctx):
    print("user code talking on stdout")
    print("and more", file=sys.stdout, flush=True)
    import os
    os.write(1, b"straight to fd 1\\n")
    return {"ok": True}

tool = define_tool(description="Prints.", input=Nothing, execute=execute)
""",
    "fine": """
def execute(input, ctx):
    return {"ok": True}

tool = define_tool(description="Works.", input=Nothing, execute=execute)
""",
}
NON_JSON = {
    "nan": "float('nan')",
    "infinite": "{'x': float('inf')}",
    "a_set": "{1, 2}",
    "raw_bytes": "b'abc'",
    "an_object": "object()",
    "self_ref": "(lambda d: (d.__setitem__('me', d), d)[1])({})",
}
for _name, _expression in NON_JSON.items():
    TOOLS[_name] = f"""
def execute(input, ctx):
    return {_expression}

tool = define_tool(description="Returns a value that is not JSON.", input=Nothing,
                   execute=execute)
"""

HOOK = """
class Weird(Exception):
    def __str__(self):
        raise RuntimeError("no message")

def on_call(event, ctx):
    if event.tool == "fine" and event.arguments.get("boom"):
        raise Weird()

hook = define_hook(events={"action.call": on_call})
"""


def make_misbehaving_agent(root: Path) -> Path:
    """The agent at `root` with every tool above (agent-root tools, no mounts), compiled."""
    files = {f"tools/{name}.py": HEAD + body for name, body in TOOLS.items()}
    files["hooks/strict.py"] = HEAD.replace("define_tool", "define_hook") + HOOK
    (root / "extensions").mkdir(parents=True)
    make_app(root, [], files)
    compile_app(root)
    return root


def run_eve(*args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = 60,
            stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    """`python -m eve_build ARGS` in a child process with a private EVE_HOME, bounded."""
    environ = {**os.environ, "EVE_HOME": str(cwd / ".eve-home"), **(env or {})}
    environ.pop("EVE_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "eve_build", *args], cwd=cwd, env=environ,
                          capture_output=True, timeout=timeout, input=stdin, check=False)
