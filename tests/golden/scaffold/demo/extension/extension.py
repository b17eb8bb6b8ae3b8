"""The demo extension and the options an agent mounts it with.

An agent mounts it with a file such as `agent/extensions/demo.py`:

    from demo import demo

    mount = demo(greeting="Hi")

Each field of `Config` is a keyword argument of that call. Contributions read the
mount's validated values through `extension.config`.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from eve_build.sdk import define_extension


class Config(BaseModel):
    """The mount options, validated when the agent builds and loads."""

    greeting: str = Field(default="Hello", description="The word each greeting starts with.")


extension = define_extension(config=Config)
