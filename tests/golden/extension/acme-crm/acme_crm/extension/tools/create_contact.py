"""Create a CRM contact (asks for approval on every call)."""

from __future__ import annotations

import asyncio

from pydantic import BaseModel

from eve_build.sdk import ToolContext, define_tool
from eve_build.sdk.approval import always

from ..extension import extension
from ..lib.http import build_url
from ..lib.state import requests


class ContactInput(BaseModel):
    name: str
    email: str
    company: str | None = None


async def execute(input: ContactInput, ctx: ToolContext) -> dict[str, object]:
    config = extension.config
    ctx.report_progress(f"creating contact {input.name}")
    await asyncio.sleep(0)
    count = requests.update(lambda n: n + 1)
    return {
        "created": True,
        "name": input.name,
        "email": input.email,
        "company": input.company,
        "region": config.region,
        "url": build_url(config.region, "contacts"),
        "requests": count,
    }


tool = define_tool(
    description="Create a new CRM contact with a name, an email and an optional company.",
    input=ContactInput,
    execute=execute,
    approval=always(),
)
