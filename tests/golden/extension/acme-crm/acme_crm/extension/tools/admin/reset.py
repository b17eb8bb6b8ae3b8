"""Reset this mount's request counter: the nested tool `admin-reset`."""

from __future__ import annotations

from pydantic import BaseModel

from eve_build.sdk import ToolContext, define_tool
from eve_build.sdk.approval import once

from ...lib.state import requests


class ResetInput(BaseModel):
    reason: str = "manual reset"


def execute(input: ResetInput, ctx: ToolContext) -> dict[str, object]:
    previous = requests.get()
    requests.set(0)
    ctx.report_progress(f"request counter reset ({input.reason})")
    return {"reset": True, "previous": previous, "reason": input.reason}


tool = define_tool(
    description="Reset the CRM request counter of this mount to zero.",
    input=ResetInput,
    execute=execute,
    approval=once(),
)
