"""`eve chat` commands with piped stdin: `/help` lists the chat's own commands and the
local extensions', and an unknown `/command` or `/skill:` is an error that keeps the
session (the next message still reaches the model)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.session.engine.fake_openai import Script

MODEL = "openai-chat:scripted"


def _chat(app: Path, env: dict[str, str], lines: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "eve_build", "chat", "--model", MODEL, "--path", str(app),
         "-e", str(app / "ext/talk.py")],
        input=lines, env=env, capture_output=True, text=True, timeout=180, check=False)


def test_help_lists_the_chats_commands_and_the_extensions(
        app: Path, model_env: dict[str, str], fake: tuple[str, Script]) -> None:
    done = _chat(app, model_env, "/help\n/exit\n")

    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.splitlines()
    assert any(line.startswith("/help ") for line in lines), done.stderr
    assert any(line.startswith("/exit ") for line in lines), done.stderr
    assert any(line.startswith("/skill:NAME") for line in lines), done.stderr
    notes = next(line for line in lines if line.startswith("/notes "))
    assert "Show notes" in notes and "talk" in notes, done.stderr
    assert "skills: greet" in done.stderr, done.stderr
    assert fake[1].requests == []  # /help is the chat's own: no turn, no model request


def test_an_unknown_command_keeps_the_session(
        app: Path, model_env: dict[str, str], fake: tuple[str, Script]) -> None:
    fake[1].steps = [{"text": "still here"}]
    done = _chat(app, model_env, "/nope\n/skill:nothing\nare you there?\n/exit\n")

    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert ("<stdin>: error session/command-unknown: there is no command `nope`"
            in done.stderr), done.stderr
    assert ("<stdin>: error session/command-unknown: the agent has no skill `nothing`"
            in done.stderr), done.stderr
    assert done.stderr.count("`/help` lists the commands") == 2, done.stderr
    assert [r["messages"][-1]["content"] for r in fake[1].requests] == ["are you there?"]
    assert "still here" in done.stdout


# the test model calls every tool, and `book` asks: `eve run` takes its answers
ANSWERS = ["--answer", "name=Ada", "--answer", "seats=1", "--answer", "meal=veg"]


@pytest.mark.parametrize("argv", [["chat"], ["run", "hello", *ANSWERS]])
def test_pydantic_ais_banner_never_shows(app: Path, eve_home: Path, argv: list[str]) -> None:
    """pydantic-ai prints a first-run banner (its logo, "observability: off", a Logfire
    link) to a terminal or to a coding agent's pipe (`AI_AGENT`): never in eve's sessions.
    The variables that would hide it anyway (pytest's, CI's, its own) are removed here."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTEST_VERSION", "CI", "PYDANTIC_AI_NO_BANNER")}
    env.update({"AI_AGENT": "1", "EVE_HOME": str(eve_home), "NO_COLOR": "1"})
    done = subprocess.run(
        [sys.executable, "-m", "eve_build", *argv, "--model", "test", "--path", str(app)],
        input="hello\n/exit\n", env=env, capture_output=True, text=True, timeout=180,
        check=False)

    assert done.returncode == 0, done.stderr
    shown = done.stdout + done.stderr
    assert "session" in shown  # the session ran
    for banner in ("observability", "Logfire", "pydantic-ai v", "PYDANTIC_AI_NO_BANNER"):
        assert banner not in shown, shown
