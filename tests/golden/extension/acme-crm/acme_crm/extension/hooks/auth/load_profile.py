"""Load the CRM user profile when a session starts: the nested hook `auth/load_profile`."""

from __future__ import annotations

from typing import Any

from eve_build.sdk import Event, define_hook


def on_session_start(event: Event, ctx: Any) -> None:
    return None


hook = define_hook(events={"session.start": on_session_start})
