"""The sample tool, run the way an agent runs it.

The `eve_extension` fixture comes from eve-build's pytest plugin: it builds this
package into `build/eve/` (as `eve extension build` does), mounts it once with the
config you pass, and calls its tools through the hook pipeline.
"""

from __future__ import annotations

from collections.abc import Callable

from eve_build.sdk import tool_result_from
from eve_build.testing import ExtensionHarness


def test_greet_uses_the_mount_config(eve_extension: Callable[..., ExtensionHarness]) -> None:
    ext = eve_extension(greeting="Hi")
    assert ext.call("greet", {"name": "Ada"}).value == {"message": "Hi, Ada!"}


def test_greet_defaults_to_hello(eve_extension: Callable[..., ExtensionHarness]) -> None:
    result = eve_extension().call("greet", {"name": "Ada"})
    assert result.progress == ("greeting Ada",)
    # the generated package exists once the fixture has built it
    from demo.tools import greet

    assert tool_result_from(result, greet) == {"message": "Hello, Ada!"}
