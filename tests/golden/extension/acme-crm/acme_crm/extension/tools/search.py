"""Search CRM contacts."""

from __future__ import annotations

from pydantic import BaseModel

from eve_build.sdk import ToolContext, define_tool

from ..extension import extension
from ..lib.http import build_url
from ..lib.state import requests
from ._shared import normalize_query


class SearchInput(BaseModel):
    query: str
    limit: int = 5


class SearchOutput(BaseModel):
    query: str
    region: str
    limit: int
    url: str
    requests: int
    results: list[str]


def execute(input: SearchInput, ctx: ToolContext) -> dict[str, object]:
    config = extension.config
    query = normalize_query(input.query)
    limit = min(input.limit, config.max_results)
    ctx.report_progress(f"searching {config.region} for {query!r}")
    count = requests.update(lambda n: n + 1)
    output = SearchOutput(
        query=query,
        region=config.region,
        limit=limit,
        url=build_url(config.region, "contacts/search", {"q": query, "limit": limit}),
        requests=count,
        results=[],
    )
    return output.model_dump()


tool = define_tool(
    description="Search CRM contacts by name, email or company; returns at most `limit` matches.",
    input=SearchInput,
    output=SearchOutput,
    execute=execute,
)
