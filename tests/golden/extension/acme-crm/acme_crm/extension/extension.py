"""The acme-crm extension and its mount options."""

from __future__ import annotations

from pydantic import BaseModel

from eve_build.sdk import define_extension


class Config(BaseModel):
    """Options given when the extension is mounted."""

    api_key: str
    """The CRM API key; mount it as `env("CRM_API_KEY")`."""
    region: str = "eu"
    max_results: int = 10


extension = define_extension(config=Config)
