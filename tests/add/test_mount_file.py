"""The mount file `eve add` writes, generated from the config JSON Schema."""

from __future__ import annotations

from pydantic import BaseModel, SecretStr

from eve_build.add.mount_file import derive_env_name, is_secret, serialize_mount_file


class CrmConfig(BaseModel):
    region: str = "eu"
    api_key: str
    tenant: str
    password_hint: str | None = None
    verbose: bool = False


class WithSecretStr(BaseModel):
    credentials: SecretStr
    limit: int = 10


def test_required_fields_come_first_as_env_and_optional_ones_as_comments() -> None:
    mount = serialize_mount_file("acme_crm", "crm", CrmConfig.model_json_schema())
    assert mount.text == '''"""Mount `acme_crm` as `crm`."""

# Written by `eve add`; edit freely.

from eve_build.sdk import env

from acme_crm import acme_crm

mount = acme_crm(
    api_key=env("CRM_API_KEY"),
    tenant=env("CRM_TENANT"),
    # region="eu",
    # password_hint=env("CRM_PASSWORD_HINT"),
    # verbose=False,
)
'''
    assert mount.env == ("CRM_API_KEY", "CRM_TENANT")
    compile(mount.text, "crm.py", "exec")


def test_a_secret_str_field_is_secret_whatever_its_name() -> None:
    schema = WithSecretStr.model_json_schema()
    assert is_secret("credentials", schema["properties"]["credentials"])
    assert not is_secret("limit", schema["properties"]["limit"])
    mount = serialize_mount_file("vault", "v", schema)
    assert 'credentials=env("V_CREDENTIALS"),' in mount.text
    assert "# limit=10," in mount.text


def test_an_extension_without_config_is_mounted_with_no_arguments() -> None:
    mount = serialize_mount_file("gizmo", "gizmo", None)
    assert mount.text.endswith("from gizmo import gizmo\n\nmount = gizmo()\n")
    assert "eve_build.sdk" not in mount.text
    assert mount.env == ()


def test_env_names_are_upper_snake_case_of_namespace_and_field() -> None:
    assert derive_env_name("crm", "api_key") == "CRM_API_KEY"
    assert derive_env_name("my-crm", "apiKey") == "MY_CRM_APIKEY"


def test_connection_variables_come_after_the_config_ones_once_each() -> None:
    from eve_build.add.mount_file import find_connection_variables

    contributions = {"connections": [
        {"name": "api", "url": "https://x", "headers": ["Authorization", "X-Team"],
         "headerEnv": ["CRM_API_KEY", "CRM_TEAM"]},
        {"name": "files", "url": {"$env": "FILES_URL"}, "headers": [],
         "headerEnv": ["CRM_TEAM"]},
        {"name": "directory", "dynamic": True}]}
    assert find_connection_variables(contributions, ("WX_API_KEY", "CRM_TEAM")) == (
        "CRM_API_KEY", "FILES_URL")
