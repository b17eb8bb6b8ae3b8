"""`ctx.ask` on the command line, in subprocesses: `eve run --answer field=value`, the
`session/input-required` failure when nobody can answer, `eve call --answer`."""

from __future__ import annotations

import json
from pathlib import Path

from eve_build.session.stores import open_session_store
from tests.session.engine.conftest import eve
from tests.session.engine.fake_openai import Script

MODEL = "openai-chat:scripted"
BOOK = [{"tools": [{"name": "book", "arguments": {"what": "Rome"}}]}, {"text": "booked"}]


def _sessions(app: Path) -> int:
    store = open_session_store(app)
    try:
        return len(store.list_sessions())
    finally:
        store.close()


def test_run_answers_the_question_from_answer_options(app: Path, model_env: dict[str, str],
                                                      fake: tuple[str, Script]) -> None:
    fake[1].steps = list(BOOK)
    done = eve(app, model_env, "run", "book Rome", "--model", MODEL, "--json",
               "--answer", "name=Ada", "-a", "seats=3", "--answer", "meal=fish")
    assert done.returncode == 0, done.stderr
    (call,) = json.loads(done.stdout)["toolCalls"]
    assert call["status"] == "ok"
    assert call["result"] == {"booked": True, "name": "Ada", "seats": 3, "meal": "fish"}


def test_defaults_fill_what_the_answers_leave(app: Path, model_env: dict[str, str],
                                              fake: tuple[str, Script]) -> None:
    fake[1].steps = list(BOOK)
    done = eve(app, model_env, "run", "book Rome", "--model", MODEL, "--json",
               "--answer", "name=Bo")
    assert done.returncode == 0, done.stderr
    (call,) = json.loads(done.stdout)["toolCalls"]
    assert call["result"] == {"booked": True, "name": "Bo", "seats": 2, "meal": "veg"}


def test_without_an_answer_the_run_fails_naming_the_fields_and_the_ways(
        app: Path, model_env: dict[str, str], fake: tuple[str, Script]) -> None:
    fake[1].steps = list(BOOK)
    done = eve(app, model_env, "run", "book Rome", "--model", MODEL)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert "session/input-required" in done.stderr
    assert "Booking Rome: the details?" in done.stderr
    assert "`name` (string, required)" in done.stderr and "`seats` (integer)" in done.stderr
    assert "--answer field=value" in done.stderr
    assert len(fake[1].requests) == 1  # stopped at the question: the model was not asked again
    assert _sessions(app) == 0  # nothing of the message was committed


def test_an_answer_that_does_not_fit_fails_the_run(app: Path, model_env: dict[str, str],
                                                   fake: tuple[str, Script]) -> None:
    fake[1].steps = list(BOOK)
    done = eve(app, model_env, "run", "book Rome", "--model", MODEL, "--json",
               "--answer", "name=Ada", "--answer", "seats=many")
    assert done.returncode == 1
    data = json.loads(done.stdout)
    assert data["status"] == "failed"
    codes = [d["code"] for d in data["diagnostics"]["items"]]
    assert codes == ["session/answer-invalid"]
    assert "`seats`" in data["diagnostics"]["items"][0]["message"]


def test_an_answer_that_is_not_a_pair_is_a_usage_error(app: Path, model_env: dict[str, str]
                                                       ) -> None:
    done = eve(app, model_env, "run", "book Rome", "--model", MODEL, "--answer", "Ada")
    assert done.returncode == 2
    assert "`Ada` is not `field=value`" in done.stderr


def test_call_answers_from_answer_options_and_fails_with_no_one_to_ask(
        app: Path, model_env: dict[str, str]) -> None:
    done = eve(app, model_env, "call", "book", '{"what": "Oslo"}', "--answer", "name=Cy")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"booked": True, "name": "Cy", "seats": 2,
                                       "meal": "veg"}
    done = eve(app, model_env, "call", "book", '{"what": "Oslo"}')
    assert done.returncode == 1
    assert "there is no one to answer here" in done.stderr
    assert "eve run --answer field=value" in done.stderr
