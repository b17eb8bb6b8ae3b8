"""The interaction seam's answers as the MCP surface relies on them: a bad answer is an
`InteractionError` naming the fields, the error's text carries what to do, and numeric
progress takes one path."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import pytest
from pydantic import BaseModel

from eve_build.errors import EveBuildError, describe_message
from eve_build.mcp.interaction import requested_schema
from eve_build.sdk import ToolContext
from eve_build.sdk.interaction import (
    InteractionError,
    LogEntry,
    Question,
    ask_person,
    interacting,
    write_log,
)


class Person(BaseModel):
    name: str
    age: int


def test_an_answer_that_keeps_not_fitting_names_the_field() -> None:
    asked: list[Question] = []

    async def answer(question: Question) -> Mapping[str, Any]:
        asked.append(question)
        return {"name": "Ada", "age": "old"}

    async def ask() -> Any:
        with interacting(ask=answer):
            return await ask_person("Who?", Person, source="sign_up")

    with pytest.raises(InteractionError) as raised:
        asyncio.run(ask())

    assert raised.value.message.startswith("`sign_up` asked 3 times and no answer was valid: "
                                           "`age`: Input should be a valid integer")
    assert asked[0].errors == ()  # then asked again with what was wrong
    assert [e["field"] for e in asked[1].errors] == ["age"]


def test_an_interaction_error_reads_with_its_hint() -> None:
    error = InteractionError("`t` asked a model: there is no one to answer here", "use one")

    assert describe_message(error) == "`t` asked a model: there is no one to answer here " \
                                      "(use one)"


def test_a_bad_log_level_names_the_levels() -> None:
    with pytest.raises(EveBuildError) as raised:
        write_log("x", "loud")

    assert raised.value.message == ("`loud` is not a log level: use one of debug, info, "
                                    "notice, warning, error, critical, alert, emergency")


def test_numeric_progress_takes_one_path() -> None:
    texts: list[str] = []
    entries: list[LogEntry] = []
    ctx = ToolContext(name="count", progress=texts.append)

    ctx.report_progress("no answerer", progress=1, total=2)  # the text path only
    with interacting(progress=entries.append):
        ctx.report_progress("numeric", progress=2, total=2)  # the answerer only
        ctx.report_progress("text")  # the text path (the answerer sees it, without numbers)

    assert texts == ["no answerer", "text"]
    assert [(e.text, e.progress, e.total) for e in entries] == [
        ("numeric", 2, 2), ("text", None, None)]


def test_a_question_schema_becomes_a_flat_requested_schema() -> None:
    schema = Person.model_json_schema()

    assert requested_schema(schema) == {
        "type": "object", "required": ["name", "age"],
        "properties": {"name": {"type": "string", "title": "Name"},
                       "age": {"type": "integer", "title": "Age"}}}
