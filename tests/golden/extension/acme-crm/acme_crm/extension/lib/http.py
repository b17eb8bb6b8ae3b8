"""Shared HTTP helpers: import-only, never a contribution."""

from __future__ import annotations

from urllib.parse import urlencode


def build_url(region: str, path: str, params: dict[str, str | int] | None = None) -> str:
    """The CRM API URL for `path` in `region`; no network is touched."""
    base = f"https://{region}.crm.example.com/api/{path.lstrip('/')}"
    if not params:
        return base
    return f"{base}?{urlencode(sorted(params.items()))}"
