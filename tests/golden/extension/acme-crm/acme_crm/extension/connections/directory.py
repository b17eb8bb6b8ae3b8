"""The regional company directory, resolved at run time from the mount's region."""

from __future__ import annotations

from typing import Any

from eve_build.sdk import Connection, define_connection, define_dynamic

from ..extension import extension


def resolve(ctx: Any) -> Connection:
    region = extension.config.region
    return define_connection(
        url=f"https://{region}.directory.example.com/openapi.json",
        kind="openapi",
    )


connection = define_dynamic(resolve=resolve)
