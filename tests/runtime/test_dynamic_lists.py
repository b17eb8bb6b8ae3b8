"""A dynamic tool may resolve to a list of definitions: alternatives under its one name,
the first whose input accepts the arguments runs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from eve_build.runtime import Agent
from tests.runtime.apps import mount_file

CONVERT = """\
from pydantic import BaseModel, ConfigDict

from eve_build.sdk import define_dynamic, define_tool


class Celsius(BaseModel):
    model_config = ConfigDict(extra="forbid")
    celsius: float


class Fahrenheit(BaseModel):
    model_config = ConfigDict(extra="forbid")
    fahrenheit: float


def resolve(ctx):
    return [
        define_tool(description="From Celsius.", input=Celsius,
                    execute=lambda i, ctx: {"kelvin": i.celsius + 273.15}),
        define_tool(description="From Fahrenheit.", input=Fahrenheit,
                    execute=lambda i, ctx: {"kelvin": (i.fahrenheit - 32) * 5 / 9 + 273.15}),
    ]


tool = define_dynamic(resolve=resolve)
"""
NOTHING = """\
from eve_build.sdk import define_dynamic

tool = define_dynamic(resolve=lambda ctx: [])
"""


def test_a_list_of_definitions_runs_the_one_that_accepts_the_arguments(
    app: Callable[..., Path], load: Callable[..., Agent]
) -> None:
    root = app(["gizmo"], {"extensions/gizmo.py": mount_file("gizmo"),
                           "tools/convert.py": CONVERT, "tools/nothing.py": NOTHING})
    agent = load(root)

    assert agent.call_tool("convert", {"celsius": 0}).value == {"kelvin": 273.15}
    assert agent.call_tool("convert", {"fahrenheit": 32}).value == {"kelvin": 273.15}
    neither = agent.call_tool("convert", {"rankine": 491.67})
    assert neither.status == "failed"
    assert neither.error is not None
    assert neither.error.startswith("no definition of the dynamic tool accepts the arguments: "
                                    "definition 1: invalid arguments: `celsius`: Field required")
    assert "| definition 2: invalid arguments: `fahrenheit`: Field required" in neither.error
    empty = agent.call_tool("nothing", {})
    assert (empty.status, empty.error) == (
        "failed", "the dynamic tool `nothing` resolved to an empty list, not define_tool() "
        "definitions")
