"""Receive CRM change notifications."""

from __future__ import annotations

from typing import Any

from eve_build.sdk import define_channel

from ..extension import extension


def handle(request: Any, ctx: Any) -> dict[str, object]:
    return {"received": True, "region": extension.config.region}


channel = define_channel(route="/crm/webhook", handle=handle, method="POST")
