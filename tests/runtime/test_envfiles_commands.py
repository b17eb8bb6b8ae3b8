"""The project's `.env` and `.env.local` reach every command that loads the agent (real
`eve call`, `eve schedule run`, `eve mcp`, `eve run` and `eve serve` processes), the
process environment wins, the values never reach an output, a log, the session store
or `.eve/`, a malformed line stops the load with file:line, and `eve info` says which
file set each `env(...)` name."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.runtime.apps import compile_app, make_app, mount_file
from tests.session.engine.fake_openai import Script, run_fake
from tests.session.engine.served import serving_agent

KEY = "crm-key-from-dotenv-7f3a9"
TOKEN = "service-token-from-dotenv-c0ffee"
PROVIDER_KEY = "sk-provider-key-from-dotenv-51d2"
SECRETS = (KEY, TOKEN, PROVIDER_KEY)
SEARCH = """\
from pydantic import BaseModel

from acme_crm.extension.extension import extension
from eve_build.sdk import define_tool


class In(BaseModel):
    query: str = ""


def execute(input, ctx):
    if input.query.startswith("leak"):
        raise RuntimeError("key is " + extension.config.api_key + "; " + input.query)
    return {"region": extension.config.region}


tool = define_tool(description="Search the CRM.", input=In, execute=execute)
"""
FILES = {
    "extensions/crm.py": mount_file("acme_crm",
                                    'api_key=env("CRM_API_KEY"), region=env("CRM_REGION")'),
    "tools/crm__search.py": SEARCH,
}
OWN = ("CRM_API_KEY", "CRM_REGION", "SERVICE_TOKEN", "EVE_MODEL", "OPENAI_API_KEY",
       "OPENAI_BASE_URL")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = make_app(tmp_path_factory.mktemp("envfiles") / "app", ["acme-crm"], FILES)
    compile_app(root)
    return root


@pytest.fixture
def app(built: Path, tmp_path: Path) -> Path:
    """A copy of the built agent whose `.env` sets the key and a region, `.env.local` a
    region and an unused token."""
    root = tmp_path / "app"
    shutil.copytree(built, root, symlinks=True)
    (root / ".env").write_text(f"CRM_API_KEY={KEY}\nCRM_REGION=dotenv\n")
    (root / ".env.local").write_text(f"CRM_REGION=dotenvlocal\nSERVICE_TOKEN='{TOKEN}'\n")
    return root


@pytest.fixture
def environ(tmp_path: Path) -> dict[str, str]:
    """The process environment of the commands: none of the app's variables."""
    base = {k: v for k, v in os.environ.items() if k not in OWN}
    return {**base, "EVE_HOME": str(tmp_path / "home"), "NO_COLOR": "1"}


@pytest.fixture(scope="module")
def fake() -> Iterator[tuple[str, Script]]:
    with run_fake() as server:
        yield server


def eve(app: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "eve_build", *args, "--path", str(app)],
                          env=env, capture_output=True, text=True, timeout=120, check=False)


def region_by_call(app: Path, env: dict[str, str]) -> str:
    done = eve(app, env, "call", "crm__search", '{"query": "x"}')
    assert done.returncode == 0, done.stderr
    return str(json.loads(done.stdout)["region"])


def region_by_schedule(app: Path, env: dict[str, str]) -> str:
    done = eve(app, env, "schedule", "run", "crm__sync", "--json")
    assert done.returncode == 0, done.stderr
    synced = json.dumps(json.loads(done.stdout))
    return synced.split("https://", 1)[1].split(".crm.example.com", 1)[0]


def region_by_mcp(app: Path, env: dict[str, str]) -> str:
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=sys.executable, env=env, cwd=str(app.parent),
                                   args=["-m", "eve_build", "mcp", "--path", str(app)])

    async def main() -> Any:
        async with asyncio.timeout(90), Client(stdio_client(params),
                                               read_timeout_seconds=60) as client:
            return await client.call_tool("crm__search", {"query": "x"})

    result = asyncio.run(main())
    assert not result.is_error, result
    text = "".join(getattr(block, "text", "") for block in result.content)
    return str(json.loads(text)["region"])


COMMANDS: dict[str, Callable[[Path, dict[str, str]], str]] = {
    "call": region_by_call, "schedule": region_by_schedule, "mcp": region_by_mcp}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_env_values_come_from_the_process_then_env_local_then_env(
        app: Path, environ: dict[str, str], command: str) -> None:
    region = COMMANDS[command]
    assert region(app, environ) == "dotenvlocal"
    assert region(app, {**environ, "CRM_REGION": "process"}) == "process"
    (app / ".env.local").unlink()
    assert region(app, environ) == "dotenv"


def test_values_of_the_files_are_redacted_from_errors(app: Path,
                                                      environ: dict[str, str]) -> None:
    plain = eve(app, environ, "call", "crm__search", json.dumps({"query": f"leak {TOKEN}"}))
    as_json = eve(app, environ, "call", "crm__search", json.dumps({"query": f"leak {TOKEN}"}),
                  "--json")

    assert plain.returncode == as_json.returncode == 1
    assert ("key is [redacted env CRM_API_KEY]; leak [redacted env SERVICE_TOKEN]"
            in plain.stderr)
    assert json.loads(as_json.stdout)["error"]["message"] == (
        "key is [redacted env CRM_API_KEY]; leak [redacted env SERVICE_TOKEN]")
    _assert_nowhere(app, plain.stdout, plain.stderr, as_json.stdout, as_json.stderr)


def test_a_malformed_line_stops_the_load_naming_file_and_line(app: Path,
                                                              environ: dict[str, str]) -> None:
    (app / ".env.local").write_text(f"CRM_REGION=x\n\nnot a line {TOKEN}\n")
    done = eve(app, environ, "call", "crm__search", '{"query": "x"}')

    assert done.returncode == 1
    assert ".env.local:3" in done.stderr
    assert "line 3 of `.env.local` is not `NAME=value`" in done.stderr
    assert "Traceback" not in done.stderr
    _assert_nowhere(app, done.stdout, done.stderr)


def _model_files(app: Path, url: str) -> None:
    """The model, its endpoint and its key from the files only."""
    with (app / ".env").open("a") as env:
        env.write(f"EVE_MODEL=openai-chat:scripted\nOPENAI_BASE_URL={url}\n")
    with (app / ".env.local").open("a") as env:
        env.write(f"OPENAI_API_KEY={PROVIDER_KEY}\n")


def test_eve_run_takes_the_model_key_and_env_values_from_the_files(
        app: Path, environ: dict[str, str], fake: tuple[str, Script]) -> None:
    url, script = fake
    _model_files(app, url)
    script.steps = [{"tools": [{"name": "crm__search", "arguments": {"query": "x"}}]},
                    {"text": "found it"}]
    done = eve(app, {**environ, "EVE_MODEL_RETRIES": "0"}, "run", "find x", "--json")

    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["reply"].strip() == "found it"
    assert data["toolCalls"][0]["result"] == {"region": "dotenvlocal"}

    script.steps = [{"status": 500, "reflect": True}]  # a proxy echoing the key back
    failed = eve(app, {**environ, "EVE_MODEL_RETRIES": "0"}, "run", "again")
    assert failed.returncode == 1
    assert "scripted 500" in failed.stderr
    _assert_nowhere(app, done.stdout, done.stderr, failed.stdout, failed.stderr)


def test_eve_serve_sessions_use_the_files(app: Path, environ: dict[str, str],
                                          fake: tuple[str, Script]) -> None:
    url, script = fake
    _model_files(app, url)
    script.steps = [{"tools": [{"name": "crm__search", "arguments": {"query": "leak"}}]},
                    {"text": "served"}]
    with (serving_agent(app, {**environ, "EVE_MODEL_RETRIES": "0"}) as (base, process),
          httpx.Client(base_url=base, timeout=60) as client):
        session = client.post("/.eve/v1/sessions").json()["id"]
        reply = client.post(f"/.eve/v1/sessions/{session}/messages", json={"text": "go"})
    assert reply.status_code == 200, reply.text
    body = reply.json()
    assert body["reply"].strip() == "served"
    assert body["toolCalls"][0]["reason"].startswith("key is [redacted env CRM_API_KEY]")
    _assert_nowhere(app, reply.text, process.stderr_text)


def test_eve_info_names_the_file_of_each_env_name_never_the_value(
        app: Path, environ: dict[str, str]) -> None:
    as_json = eve(app, {**environ, "CRM_REGION": "process"}, "info", "--json")
    text = eve(app, environ, "info")

    assert as_json.returncode == text.returncode == 0, as_json.stderr + text.stderr
    assert json.loads(as_json.stdout)["env"] == [
        {"name": "CRM_API_KEY", "from": ".env", "files": ["agent/extensions/crm.py"]},
        {"name": "CRM_REGION", "from": "environment", "files": ["agent/extensions/crm.py"]}]
    assert "env: CRM_API_KEY (.env), CRM_REGION (.env.local)" in text.stdout
    (app / ".env").unlink()
    missing = eve(app, environ, "info", "--json")
    assert json.loads(missing.stdout)["env"][0] == {
        "name": "CRM_API_KEY", "from": None, "files": ["agent/extensions/crm.py"]}
    _assert_nowhere(app, as_json.stdout, text.stdout, as_json.stderr, text.stderr)


def _assert_nowhere(app: Path, *outputs: str) -> None:
    """No secret of the files in `outputs`, nor in any file `eve` wrote (`.eve/`,
    `build/`: the compiled agent, the session store, the events)."""
    for output in outputs:
        for secret in SECRETS:
            assert secret not in output
    for folder in (app / ".eve", app / "build", app / "agent"):
        for path in folder.rglob("*") if folder.exists() else ():
            if path.is_file():
                data = path.read_bytes()
                for secret in SECRETS:
                    assert secret.encode() not in data, path
