"""Sync contacts every fifteen minutes."""

from __future__ import annotations

from typing import Any

from eve_build.sdk import define_schedule

from ..extension import extension
from ..lib.http import build_url
from ..lib.state import requests


def run(ctx: Any) -> dict[str, object]:
    count = requests.update(lambda n: n + 1)
    return {"synced": build_url(extension.config.region, "contacts/sync"), "requests": count}


schedule = define_schedule(cron="*/15 * * * *", run=run)
