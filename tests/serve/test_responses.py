"""What a channel handler returns becomes which response; `eve prompt` of a subagent."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel
from starlette.responses import PlainTextResponse
from typer.testing import CliRunner

from eve_build.cli import app as cli
from eve_build.serve.channels import ChannelFailure, derive_response
from tests.serve.apps import ENVIRON


class Contact(BaseModel):
    name: str


def test_returned_values_become_responses() -> None:
    assert (derive_response({"a": 1}).status_code, derive_response({"a": 1}).body) == (
        200, b'{"a": 1}')
    assert derive_response([1, "é"]).body == '[1, "é"]'.encode()
    assert derive_response(Contact(name="Ada")).body == b'{"name": "Ada"}'
    empty = derive_response(None)
    assert (empty.status_code, empty.body) == (204, b"")
    text = derive_response("hi")
    assert (text.body, text.media_type) == (b"hi", "text/plain")
    given = PlainTextResponse("teapot", status_code=418)
    assert derive_response(given) is given


@pytest.mark.parametrize(("value", "reason"), [
    ({"x": {1, 2}}, "the handler returned a value that is not JSON: Object of type set"),
    ({"x": float("nan")}, "the handler returned a value that is not JSON: Out of range float"),
    (42, "the handler returned int; a channel returns a dict or list (JSON), a str (text), "
         "None (204) or a Response"),
])
def test_values_that_cannot_be_sent_are_channel_failures(value: object, reason: str) -> None:
    with pytest.raises(ChannelFailure) as caught:
        derive_response(value)
    assert str(caught.value).startswith(reason)


def test_the_prompt_of_a_subagent_has_its_instructions_and_tools(served_root: Path) -> None:
    result = CliRunner(env=ENVIRON).invoke(
        cli, ["prompt", "--path", str(served_root), "--subagent", "crm__reviewer"])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("You review proposed CRM changes before they are made.")
    assert result.stdout.endswith(
        "Tools:\n- score: Score a proposed CRM change from 0 (dangerous) to 10 (safe).\n")


def test_eve_dev_without_serving_on_a_missing_folder_is_a_usage_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["dev", "--no-serve", "--path", str(tmp_path / "none")])
    assert result.exit_code == 2
    assert "does not exist" in result.stderr and "--path" in result.stderr
