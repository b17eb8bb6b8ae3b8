"""The `greet` tool: greets someone with the mount's configured greeting.

Its name comes from its path: `tools/greet.py` is `greet`, and an agent that
mounts this extension as `demo` sees it as `demo__greet`.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from eve_build.sdk import ToolContext, define_tool

from ..extension import extension


class GreetInput(BaseModel):
    """What the model passes to the tool."""

    name: str = Field(description="Who to greet.")


def greet(args: GreetInput, ctx: ToolContext) -> dict[str, str]:
    ctx.report_progress(f"greeting {args.name}")
    greeting = extension.config.greeting
    return {"message": f"{greeting}, {args.name}!"}


tool = define_tool(
    description="Greet someone by name.",
    input=GreetInput,
    execute=greet,
)
