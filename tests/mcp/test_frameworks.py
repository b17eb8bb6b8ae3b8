"""The examples of docs/frameworks.md run, with no network: pydantic-ai through the
toolset (FunctionModel), the OpenAI Agents SDK through `eve mcp` (a Model of our own),
LangChain through `eve mcp` and `/mcp` (langchain_mcp_adapters, the tools invoked)."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.conftest import REPO
from tests.mcp import langchain_env
from tests.mcp.conftest import SECRETS

EXAMPLES = REPO / "docs" / "examples"


def example(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"eve_example_{name}", EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_pydantic_ai_through_the_toolset(mcp_app: Path, monkeypatch: pytest.MonkeyPatch
                                         ) -> None:
    from pydantic_ai.messages import (
        ModelMessage,
        ModelRequest,
        ModelResponse,
        TextPart,
        ToolCallPart,
        ToolReturnPart,
    )
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    calls = [("crm__search", {"query": "ada"}), ("crm__search", {"query": "forbidden"}),
             ("crm__create_contact", {"name": "Ada", "email": "ada@example.com"})]
    told: list[ToolReturnPart] = []
    offered: list[str] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        offered[:] = [tool.name for tool in info.function_tools]
        if isinstance(messages[-1], ModelRequest):
            told.extend(p for p in messages[-1].parts if isinstance(p, ToolReturnPart))
        made = sum(isinstance(p, ToolCallPart) for m in messages
                   if isinstance(m, ModelResponse) for p in m.parts)
        if made < len(calls):
            name, args = calls[made]
            return ModelResponse(parts=[ToolCallPart(name, json.dumps(args),
                                                     tool_call_id=f"c{made}")])
        return ModelResponse(parts=[TextPart("done")])

    decided: list[tuple[str, dict[str, Any]]] = []

    def decide(tool: str, arguments: dict[str, Any]) -> bool:
        decided.append((tool, arguments))
        return True

    output = example("pydantic_ai_toolset").run(mcp_app, "go", FunctionModel(respond), decide)
    assert output == "done"
    assert {"crm__search", "crm__create_contact", "greet"} <= set(offered)
    assert told[0].content["region"] == "eu"  # the mount's config, from CRM_API_KEY's mount
    assert told[1].outcome == "failed" and "blocked" in str(told[1].content)
    assert decided == [("crm__create_contact", {"name": "Ada", "email": "ada@example.com"})]
    assert told[2].content["created"] is True


class ScriptedModel:
    """An OpenAI Agents SDK Model (agents.Model): calls the tools of `calls` one per turn,
    then answers with what it was told; the outputs it received are kept in `told`."""

    def __init__(self, calls: list[tuple[str, dict[str, Any]]]) -> None:
        self.calls, self.told, self.offered = calls, [], []  # type: ignore[var-annotated]

    async def get_response(self, system_instructions: Any, input: Any, model_settings: Any,
                           tools: Any, output_schema: Any, handoffs: Any, tracing: Any,
                           **kwargs: Any) -> Any:
        del system_instructions, model_settings, output_schema, handoffs, tracing, kwargs
        from agents.items import ModelResponse
        from agents.usage import Usage
        from openai.types.responses import (
            ResponseFunctionToolCall,
            ResponseOutputMessage,
            ResponseOutputText,
        )

        self.offered = [tool.name for tool in tools]
        items = [] if isinstance(input, str) else input
        self.told = [item["output"] for item in items
                     if isinstance(item, dict) and item.get("type") == "function_call_output"]
        made = sum(1 for item in items
                   if isinstance(item, dict) and item.get("type") == "function_call")
        if made < len(self.calls):
            name, args = self.calls[made]
            output: list[Any] = [ResponseFunctionToolCall(
                type="function_call", call_id=f"call-{made}", name=name,
                arguments=json.dumps(args), id=f"fc-{made}", status="completed")]
        else:
            output = [ResponseOutputMessage(
                id="msg", type="message", role="assistant", status="completed",
                content=[ResponseOutputText(type="output_text", text="done", annotations=[])])]
        return ModelResponse(output=output, usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        del args, kwargs
        raise NotImplementedError("the example does not stream")


def _agents_model(calls: list[tuple[str, dict[str, Any]]]) -> Any:
    from agents import Model

    return type("Scripted", (ScriptedModel, Model), {})(calls)


def test_openai_agents_sdk_through_eve_mcp(mcp_app: Path, tmp_path: Path) -> None:
    from agents import set_tracing_disabled

    set_tracing_disabled(True)
    env = {"PATH": os.environ.get("PATH", ""), "EVE_HOME": str(tmp_path / "eve-home"),
           **SECRETS}
    model = _agents_model([("crm__search", {"query": "ada"}),
                           ("crm__search", {"query": "forbidden"}), ("greet", {"name": "Ada"})])
    output = asyncio.run(example("openai_agents_mcp").run(mcp_app, "go", model, env))
    assert output == "done"
    assert {"crm__search", "crm__create_contact", "greet"} <= set(model.offered)
    found, blocked, greeting = [_text(told) for told in model.told]
    assert json.loads(found)["region"] == "eu"
    assert "blocked" in blocked and "forbidden" in blocked
    assert greeting == "Hello, Ada"


def test_the_stdio_server_sees_only_the_environment_given(mcp_app: Path,
                                                          tmp_path: Path) -> None:
    """Without the secret in `env`, the mount that reads it is unavailable in `eve mcp`
    and its tools fail with the reason: the values the mounts read must be passed to
    the stdio server (what the examples do)."""
    from agents import set_tracing_disabled

    set_tracing_disabled(True)
    env = {"PATH": os.environ.get("PATH", ""), "EVE_HOME": str(tmp_path / "eve-home")}
    model = _agents_model([("crm__search", {"query": "ada"})])
    asyncio.run(example("openai_agents_mcp").run(mcp_app, "go", model, env))
    [told] = [_text(told) for told in model.told]
    assert "cannot run" in told and 'env("CRM_API_KEY"), which is not set' in told


def _text(value: Any) -> str:
    """An MCP tool's answer as a framework gives it (text, or content blocks) as text."""
    if isinstance(value, str):
        return value
    return "".join(block.get("text", "") if isinstance(block, dict) else str(block)
                   for block in value)


def required_langchain_python(environ: Mapping[str, str]) -> str:
    """A Python with langchain-mcp-adapters: it needs the MCP SDK 1.x, eve-build the 2.x,
    so it lives in its own venv (docs/frameworks.md), built once into the tests' cache
    (tests/mcp/langchain_env.py; `.ci/run` builds it before the tests), or named by
    EVE_LANGCHAIN_PYTHON. A build that fails skips, unless under CI."""
    override = environ.get("EVE_LANGCHAIN_PYTHON", "")
    if override:
        probe = subprocess.run([override, "-c", langchain_env.PROBE], capture_output=True,
                               text=True, timeout=120, check=False)
        if probe.returncode != 0:
            pytest.fail(f"EVE_LANGCHAIN_PYTHON={override} cannot import "
                        f"langchain_mcp_adapters: {probe.stderr.strip()[-300:]}")
        return override
    try:
        return str(langchain_env.build())
    except langchain_env.BuildError as exc:
        if environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"LangChain's venv could not be built and CI is set: {exc}")
        pytest.skip(f"LangChain's venv could not be built: {exc}")


@pytest.fixture(scope="module")
def langchain_python() -> str:
    return required_langchain_python(os.environ)


def _langchain(python: str, where: str, env: dict[str, str], tool: str,
               arguments: dict[str, Any]) -> Any:
    done = subprocess.run(
        [python, str(EXAMPLES / "langchain_mcp.py"), where, tool,
         json.dumps(arguments)], capture_output=True, text=True, timeout=180, check=False,
        env={**env, "EVE": str(Path(sys.executable).parent / "eve")})
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout) if done.stdout.startswith(("[", "{")) else done.stdout


def test_langchain_through_eve_mcp(mcp_app: Path, tmp_path: Path, langchain_python: str
                                   ) -> None:
    env = {"PATH": os.environ.get("PATH", ""), "EVE_HOME": str(tmp_path / "eve-home"),
           **SECRETS}
    greeting = _langchain(langchain_python, str(mcp_app), env, "greet", {"name": "Ada"})
    assert _text(greeting).strip() == "Hello, Ada"
    found = _langchain(langchain_python, str(mcp_app), env, "crm__search", {"query": "ada"})
    assert json.loads(_text(found))["region"] == "eu"


def test_langchain_through_slash_mcp(mcp_app: Path, eve_env: Callable[..., dict[str, str]],
                                     langchain_python: str) -> None:
    from tests.mcp.test_interop import eve_serve

    env = eve_env(NO_COLOR="1")
    with eve_serve(mcp_app, env) as url:
        greeting = _langchain(langchain_python, url, env, "greet", {"name": "Ada"})
    assert _text(greeting).strip() == "Hello, Ada"


def test_the_test_extra_installs_the_openai_agents_sdk() -> None:
    """The `[test]` extra installs what the OpenAI Agents SDK example imports (so the suite
    runs it); langchain-mcp-adapters cannot be there (it needs the MCP SDK 1.x)."""
    import tomllib

    extra = tomllib.loads((REPO / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]["test"]
    assert any(r.startswith("openai-agents") for r in extra)
    assert not any(r.startswith("langchain-mcp-adapters") for r in extra)


def _build(cache: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """`python tests/mcp/langchain_env.py` (as `.ci/run` runs it) into `cache`."""
    return subprocess.run([sys.executable, str(Path(langchain_env.__file__))],
                          capture_output=True, text=True, timeout=900, check=False,
                          env={**os.environ, "XDG_CACHE_HOME": str(cache), **env})


def test_langchains_venv_is_built_once_with_the_pinned_versions(tmp_path: Path) -> None:
    done = _build(tmp_path / "cache")
    assert done.returncode == 0, done.stderr
    root = tmp_path / "cache" / "eve-build-tests"
    python = langchain_env.python(root)
    assert done.stdout == f"langchain python: {python}\n"
    assert python.parent.parent.name == f"langchain-{langchain_env.ADAPTERS_VERSION}"
    versions = subprocess.run(
        [str(python), "-c", "import importlib.metadata as m; print(m.version('mcp'), "
         "m.version('langchain-mcp-adapters'))"],
        capture_output=True, text=True, timeout=120, check=True).stdout.split()
    assert versions == ["1.30.0", langchain_env.ADAPTERS_VERSION]
    # built once: with no index to reach, the venv is found, not rebuilt
    again = _build(tmp_path / "cache", UV_DEFAULT_INDEX="http://127.0.0.1:9/simple",
                   UV_OFFLINE="1")
    assert again.returncode == 0, again.stderr
    assert again.stdout == done.stdout


def test_a_failed_build_names_uvs_reason_and_leaves_no_venv(tmp_path: Path) -> None:
    from tests.mcp.servers import refusing_port

    with refusing_port() as port:  # an index that refuses: the network is absent
        done = _build(tmp_path / "cache", UV_DEFAULT_INDEX=f"http://127.0.0.1:{port}/simple",
                      UV_CACHE_DIR=str(tmp_path / "uv-cache"), UV_HTTP_RETRIES="0")
    assert done.returncode == 1
    assert done.stderr.startswith("error: `uv pip install langchain-mcp-adapters==0.3.2 "), (
        done.stderr)
    assert "Connection refused" in done.stderr and "Traceback" not in done.stderr
    assert not langchain_env.built(tmp_path / "cache" / "eve-build-tests")


def test_a_failed_build_fails_under_ci_and_skips_elsewhere(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(root: Path | None = None) -> Path:
        raise langchain_env.BuildError("`uv pip install ...` failed (exit 2): offline")

    monkeypatch.setattr(langchain_env, "build", refuse)
    with pytest.raises(pytest.fail.Exception, match="CI is set: `uv pip install"):
        required_langchain_python({"CI": "true"})
    for environ in ({}, {"CI": ""}, {"CI": "false"}):
        with pytest.raises(pytest.skip.Exception, match="could not be built: `uv pip"):
            required_langchain_python(environ)


def test_eve_langchain_python_overrides_the_built_venv(
        monkeypatch: pytest.MonkeyPatch, langchain_python: str) -> None:
    def refuse(root: Path | None = None) -> Path:
        raise AssertionError("the override is used: nothing is built")

    monkeypatch.setattr(langchain_env, "build", refuse)
    named = {"EVE_LANGCHAIN_PYTHON": langchain_python, "CI": "true"}
    assert required_langchain_python(named) == langchain_python
    with pytest.raises(pytest.fail.Exception, match="cannot import langchain_mcp_adapters"):
        required_langchain_python({"EVE_LANGCHAIN_PYTHON": sys.executable, "CI": "true"})
