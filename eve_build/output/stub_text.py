"""The text of the mount factory's `.pyi` around the parts `stubs.derive_stub_parts`
spelled in a build worker: plain text, so the build process needs no pydantic for it."""

from __future__ import annotations


def render_stub(import_name: str, params: str, classes: str, header: str) -> str:
    """The whole `__init__.pyi` from derive_stub_parts()'s text."""
    return (
        f"{header}from typing import Any, Literal, NotRequired, TypedDict\n\n"
        f"from eve_build.sdk import Env, Mount\n\n"
        f"PACKAGE: str\nVERSION: str\n\n{classes}"
        f"def {import_name}({params}) -> Mount: ...\n"
    )
