"""`eve run` / `eve chat` with no model anywhere say so before the model engine
(pydantic-ai) or the agent is imported, naming the ways to set one (issue 28 item 8;
the time is measured by bench/first_error_bench.py, never here)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from eve_build.consumer.build import build_agent
from eve_build.formats.compiled import COMPILED_PATH
from eve_build.session.models import COMPILED_FILE
from tests.runtime.apps import make_app

WAYS = ("`--model provider:model`", "`EVE_MODEL`", "`define_agent(model=...)` in "
        "`agent/agent.py`", "`--model test`")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("first-error") / "app"
    root.mkdir()
    make_app(root, [], {})
    build_agent(root)
    return root


def _environ(home: Path) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if k != "EVE_MODEL"}
    return {**base, "EVE_HOME": str(home), "NO_COLOR": "1"}


def _eve(app: Path, home: Path, *args: str, stdin: str = ""
         ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-X", "importtime", "-m", "eve_build", *args,
                           "--path", str(app)], env=_environ(home), input=stdin,
                          capture_output=True, text=True, timeout=120, check=False)


def _imported(stderr: str) -> set[str]:
    return {line.rsplit("|", 1)[1].strip() for line in stderr.splitlines()
            if line.startswith("import time:") and "|" in line}


@pytest.mark.parametrize("command", [("run", "hello"), ("run", "hello", "--json"), ("chat",)])
def test_no_model_is_said_before_the_engine_or_the_agent_is_imported(
        built: Path, tmp_path: Path, command: tuple[str, ...]) -> None:
    done = _eve(built, tmp_path, *command, stdin="hello\n")

    assert done.returncode == 1
    imported = _imported(done.stderr)
    assert "pydantic_ai" not in imported
    assert not {name for name in imported if name.startswith("eve_build.runtime")}
    shown = done.stdout if "--json" in command else done.stderr
    assert "session/model-missing" in shown
    assert "no model is configured for this agent" in shown
    for way in WAYS:
        assert way in shown
    assert "Traceback" not in done.stderr
    if "--json" in command:
        payload = json.loads(done.stdout)
        assert payload["status"] == "failed"
        assert payload["diagnostics"]["items"][0]["code"] == "session/model-missing"


def test_a_model_in_the_env_file_is_a_model(built: Path, tmp_path: Path) -> None:
    (built / ".env").write_text("EVE_MODEL=test\n")
    try:
        done = _eve(built, tmp_path, "run", "hello")
    finally:
        (built / ".env").unlink()
    assert done.returncode == 0, done.stderr
    assert "pydantic_ai" in _imported(done.stderr)


def test_the_agents_own_model_is_a_model(tmp_path: Path) -> None:
    (tmp_path / "own").mkdir()
    root = make_app(tmp_path / "own", [], {
        "agent.py": 'from eve_build.sdk import define_agent\n\n'
                    'agent = define_agent(model="test")\n'})
    build_agent(root)
    done = _eve(root, tmp_path / "home", "run", "hello")
    assert done.returncode == 0, done.stderr


def test_the_fast_check_reads_the_compiled_agent_where_the_build_writes_it() -> None:
    assert COMPILED_FILE == COMPILED_PATH
