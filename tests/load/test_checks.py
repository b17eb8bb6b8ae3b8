"""Config model checks that need no fixture project."""

from __future__ import annotations

from pydantic import BaseModel, field_validator

from eve_build.load.checks import Where, check_extension, find_async_validators
from eve_build.sdk import define_extension


class Inner(BaseModel):
    value: str = ""

    @field_validator("value")
    @classmethod
    async def remote(cls, value: str) -> str:  # an async validator, nested deep
        return value


class Outer(BaseModel):
    items: list[Inner] = []
    maybe: Inner | None = None


def test_async_validators_are_found_inside_generic_fields() -> None:
    assert find_async_validators(Outer) == ["Inner.remote"]


def test_the_config_check_reports_them() -> None:
    where = Where("extension/extension.py", 3)
    schema, found = check_extension(define_extension(config=Outer), where)

    assert schema is None
    assert [(d.code, d.file, d.line) for d in found] == [
        ("config/async-validator", "extension/extension.py", None)]
    assert "Inner.remote" in found[0].message
