"""Secret-like config fields: no message about them repeats text derived from the value."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, SecretStr

from eve_build.load.config import validate_config
from eve_build.load.fields import find_invalid_defaults
from eve_build.secret_fields import describe_given, is_secret_field


def _echo(value: str) -> str:  # a validator that repeats what it was given, transformed
    raise ValueError(f"not accepted: {value.upper()}")


Echoing = Annotated[str, AfterValidator(_echo)]


class Config(BaseModel):
    api_key: Echoing = "sk-default-canary"
    token: SecretStr | None = None
    region: Echoing = "eu-default"


def test_fields_are_secret_by_name_or_by_type() -> None:
    assert is_secret_field(Config, "api_key")
    assert is_secret_field(Config, "token")
    assert not is_secret_field(Config, "region")


def test_a_mount_config_error_on_a_secret_field_hides_the_validators_message() -> None:
    _, found = validate_config(Config, {"api_key": "sk-given-canary", "region": "us-given"},
                               shown="agent/extensions/crm.py", package="acme-crm", line=3)

    message = found[0].message
    assert "`api_key`: the value is invalid" in message
    assert "SK-GIVEN-CANARY" not in message.upper().replace("`API_KEY`", "")
    assert "not accepted: US-GIVEN" in message  # a plain field keeps its message


def test_an_invalid_secret_default_is_reported_without_its_value() -> None:
    found = find_invalid_defaults(Config, "extension/extension.py", 1, "model/default-invalid")

    by_field = {d.message.split("`")[1]: d.message for d in found}
    assert set(by_field) == {"api_key", "region"}
    assert "SK-DEFAULT-CANARY" not in by_field["api_key"].upper()
    assert "the field holds a secret" in by_field["api_key"]
    assert "EU-DEFAULT" in by_field["region"]


def test_a_given_value_is_described_without_its_repr() -> None:
    assert describe_given(Config()) == "an instance of `Config`"
    assert describe_given(Config) == "the class `Config`"
    assert describe_given(None) == "None"
