"""The sample tool, run the way an agent's mount runs it.

`eve extension build` generates the `demo` package under `build/eve/`
(the editable install puts it on `sys.path`); build again after changing
`extension/`.
"""

from __future__ import annotations

from eve_build.sdk import ToolContext
from eve_build.sdk.binding import Binding, bind

from demo.extension.extension import Config, extension
from demo.tools import greet


def test_greet_uses_the_mount_config() -> None:
    with bind(Binding(extension, Config(greeting="Hi"), "extensions/demo")):
        result = greet.execute(greet.input(name="Ada"), ToolContext("greet"))
    assert result == {"message": "Hi, Ada!"}


def test_greet_defaults_to_hello() -> None:
    with bind(Binding(extension, Config(), "extensions/demo")):
        result = greet.execute(greet.input(name="Ada"), ToolContext("greet"))
    assert result == {"message": "Hello, Ada!"}
