"""Score a proposed CRM change."""

from __future__ import annotations

from pydantic import BaseModel

from eve_build.sdk import ToolContext, define_tool


class ScoreInput(BaseModel):
    change: str


def execute(input: ScoreInput, ctx: ToolContext) -> dict[str, object]:
    risky = any(word in input.change.lower() for word in ("delete", "billing", "merge"))
    return {"change": input.change, "score": 2 if risky else 8, "risky": risky}


tool = define_tool(
    description="Score a proposed CRM change from 0 (dangerous) to 10 (safe).",
    input=ScoreInput,
    execute=execute,
)
