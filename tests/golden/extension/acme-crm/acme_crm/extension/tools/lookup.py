"""Look up one record: a tool resolved at run time."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from eve_build.sdk import Tool, ToolContext, define_dynamic, define_tool

from ..extension import extension
from ..lib.http import build_url


class LookupInput(BaseModel):
    record_id: str


def execute(input: LookupInput, ctx: ToolContext) -> dict[str, object]:
    config = extension.config
    ctx.report_progress(f"looking up {input.record_id}")
    return {
        "record_id": input.record_id,
        "region": config.region,
        "url": build_url(config.region, f"records/{input.record_id}"),
    }


def resolve(ctx: Any) -> Tool:
    return define_tool(
        description="Look up one CRM record by its id and return where it lives.",
        input=LookupInput,
        execute=execute,
    )


tool = define_dynamic(resolve=resolve)
