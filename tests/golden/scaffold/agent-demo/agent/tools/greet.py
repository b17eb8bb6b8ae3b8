"""The `greet` tool: the agent's own, so its name has no namespace prefix.

Its name comes from its path: `tools/greet.py` is `greet`. Add more tools as more
files in this folder; `eve add` mounts extensions beside them.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from eve_build.sdk import ToolContext, define_tool


class GreetInput(BaseModel):
    """What the model passes to the tool."""

    name: str = Field(description="Who to greet.")


def greet(args: GreetInput, ctx: ToolContext) -> dict[str, str]:
    return {"message": f"Hello, {args.name}!"}


tool = define_tool(
    description="Greet someone by name.",
    input=GreetInput,
    execute=greet,
)
