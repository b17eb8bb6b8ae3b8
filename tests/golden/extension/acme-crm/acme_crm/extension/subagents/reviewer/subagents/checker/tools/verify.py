"""Verify a billing-related change."""

from __future__ import annotations

from pydantic import BaseModel

from eve_build.sdk import ToolContext, define_tool


class VerifyInput(BaseModel):
    record_id: str
    amount: float


def execute(input: VerifyInput, ctx: ToolContext) -> dict[str, object]:
    return {"record_id": input.record_id, "amount": input.amount, "consistent": input.amount >= 0}


tool = define_tool(
    description="Verify that a billing change to a CRM record is consistent.",
    input=VerifyInput,
    execute=execute,
)
