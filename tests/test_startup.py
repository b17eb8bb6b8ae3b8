"""eve_build.startup: a one-shot `eve run` or `eve call` holds the collector while it starts and
freezes what starting made; every other process keeps the collector as it was. (The
time saved is measured by bench/offline_turn_bench.py, never here.)"""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from eve_build.consumer.build import build_agent
from eve_build.session.run import RunRequest, run_message
from tests.runtime.apps import make_app

REPORTING_TOOL = '''import gc

from pydantic import BaseModel

from eve_build.sdk import define_tool


class Input(BaseModel):
    text: str


def run(input: Input, ctx: object) -> dict[str, object]:
    return {"enabled": gc.isenabled(), "frozen": gc.get_freeze_count()}


tool = define_tool(description="The collector's state.", input=Input, execute=run)
'''


def _python(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=True)
    return done.stdout.strip()


def test_a_hold_disables_collection_and_its_release_freezes_and_enables_it() -> None:
    code = ("import gc\nfrom eve_build.startup import hold_collection, release_collection, "
            "is_collection_held\nhold_collection()\n"
            "held = [object() for _ in range(10)]\n"
            "print(gc.isenabled(), is_collection_held())\nrelease_collection()\n"
            "print(gc.isenabled(), is_collection_held(), gc.get_freeze_count() > 1000)\n")

    assert _python(code).splitlines() == ["False True", "True False True"]


def test_a_release_without_a_hold_changes_nothing() -> None:
    code = ("import gc\nfrom eve_build.startup import release_collection\n"
            "gc.disable()\nrelease_collection()\nprint(gc.isenabled(), gc.get_freeze_count())\n"
            "gc.enable()\nrelease_collection()\nprint(gc.isenabled(), gc.get_freeze_count())\n")

    assert _python(code).splitlines() == ["False 0", "True 0"]


@pytest.fixture(scope="module")
def reporting_app(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("startup") / "app"
    root.mkdir()
    make_app(root, [], {"tools/collector.py": REPORTING_TOOL})
    build_agent(root)
    return root


def test_eve_run_turns_the_collector_back_on_before_the_turn(reporting_app: Path,
                                                             tmp_path: Path) -> None:
    environ = {**{k: v for k, v in os.environ.items() if k != "EVE_MODEL"},
               "EVE_HOME": str(tmp_path / "home"), "NO_COLOR": "1"}
    done = subprocess.run([sys.executable, "-m", "eve_build", "run", "hello", "--model",
                           "test", "--path", str(reporting_app)], env=environ,
                          capture_output=True, text=True, timeout=120, check=False)

    assert done.returncode == 0, done.stderr[-2000:]
    state = json.loads(done.stdout)["collector"]
    assert state["enabled"] is True
    assert state["frozen"] > 10_000  # the modules and the loaded agent


def test_eve_call_turns_the_collector_back_on_before_the_call(reporting_app: Path,
                                                               tmp_path: Path) -> None:
    environ = {**os.environ, "EVE_HOME": str(tmp_path / "home"), "NO_COLOR": "1"}
    done = subprocess.run([sys.executable, "-m", "eve_build", "call", "collector",
                           '{"text": "a"}', "--path", str(reporting_app)], env=environ,
                          capture_output=True, text=True, timeout=120, check=False)

    assert done.returncode == 0, done.stderr[-2000:]
    state = json.loads(done.stdout)
    assert state["enabled"] is True
    assert state["frozen"] > 10_000


def test_a_session_opened_in_a_process_that_held_nothing_freezes_nothing(
        reporting_app: Path) -> None:
    assert gc.isenabled()
    frozen = gc.get_freeze_count()

    result = run_message(reporting_app, "hello", RunRequest(model="test"))

    assert result.ok, result.reply
    assert json.loads(result.reply)["collector"] == {"enabled": True, "frozen": frozen}
    assert gc.get_freeze_count() == frozen
