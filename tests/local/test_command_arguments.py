"""A command's arguments in and reply out (eve_build/local/commands.py): `key=value`
words or a mapping validated into the input model, and the reply's parts."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import BaseModel

from eve_build.runtime.commands import (
    CommandArgumentsError,
    CommandOutcome,
    complete_argument,
    derive_outcome,
    parse_arguments,
)
from eve_build.sdk import ToolResult, audio, define_command, image, resource, text


class Search(BaseModel):
    query: str


class Greeting(BaseModel):
    name: str
    times: int = 1


def test_text_commands_keep_their_text_and_named_ones_get_a_model() -> None:
    plain = define_command(run=print)
    assert parse_arguments(plain, "a  b") == "a  b"
    assert parse_arguments(plain, {"args": "x"}) == "x"  # an MCP prompt's one argument
    greet = define_command(run=print, input=Greeting)
    assert parse_arguments(greet, "name='Ada Lovelace' times=2") == Greeting(
        name="Ada Lovelace", times=2)
    assert parse_arguments(greet, {"name": "Ada"}) == Greeting(name="Ada")
    search = define_command(run=print, input=Search)  # one field: the whole text is it
    assert parse_arguments(search, "red shoes") == Search(query="red shoes")


@pytest.mark.parametrize(("words", "reason"), [
    ("Ada", "`Ada` is not `key=value`; the arguments are `name=...`, `times=...`"),
    ("name=Ada colour=red", "unknown argument `colour`; the arguments are `name`, `times`"),
    ("times=many", "`name`: Field required; `times`: Input should be a valid integer"),
    ("name='Ada", "the arguments do not parse: No closing quotation"),
])
def test_arguments_that_do_not_fit_say_why(words: str, reason: str) -> None:
    with pytest.raises(CommandArgumentsError) as raised:
        parse_arguments(define_command(run=print, input=Greeting), words)
    assert str(raised.value).startswith(reason)


def test_replies_become_text_and_parts() -> None:
    pixel = image(b"\x89PNG", "image/png")
    assert reply("hi").text == "hi"
    parts = derive_outcome([text("see"), pixel, audio(b"RIFF", "audio/wav"),
                            resource("memo://a", text="body")])
    assert parts is not None
    assert parts.text == "see\n[image image/png, 4 bytes]\n[audio audio/wav, 4 bytes]\nbody"
    assert reply(pixel).content == (pixel,)
    assert reply(ToolResult(content=[text("r")])).text == "r"
    for no_reply in (3, None, [], ["a", "b"], {"a": 1}):
        assert derive_outcome(no_reply) is None


def reply(value: object) -> CommandOutcome:
    outcome = derive_outcome(value)
    assert outcome is not None
    return outcome


def test_completions_filter_a_list_or_ask_a_function() -> None:
    async def names(partial: str) -> list[str]:
        return [n for n in ("ada", "alan") if n.startswith(partial)]

    command = define_command(run=print, input=Greeting,
                             complete={"name": names, "times": ["1", "2", "10"]})
    assert asyncio.run(complete_argument(command, "name", "al")) == ["alan"]
    assert asyncio.run(complete_argument(command, "times", "1")) == ["1", "10"]
    assert asyncio.run(complete_argument(command, "other", "")) == []
