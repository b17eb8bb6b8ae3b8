"""Class 4: config errors about env(...) values never show text derived from the value."""

from __future__ import annotations

from pathlib import Path

import pytest

from eve_build.errors import DiagnosticsError
from eve_build.runtime import load_agent
from tests.runtime.apps import compile_app, make_app, mount_file

CANARY = "Æsir-Øl-Ðrúð-ßþ"
"""Letters found in no message of eve-build or pydantic: any one of them is a leak."""
FIELDS = ["formatted", "lowered", "split", "ident", "url", "count", "code", "whole"]


@pytest.fixture(scope="module")
def agent_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    arguments = ", ".join(f'{field}=env("SECRET_{field.upper()}")' for field in FIELDS)
    root = make_app(tmp_path_factory.mktemp("secrets") / "app", ["echoing-validators"], {
        "extensions/echo.py": mount_file("echoing_validators", arguments)})
    compile_app(root)
    return root


def _load_error(root: Path, environ: dict[str, str]) -> str:
    with pytest.raises(DiagnosticsError) as caught:
        load_agent(root, environ=environ)
    return "\n".join(d.render() for d in caught.value.diagnostics) + str(caught.value)


def _assert_no_trace_of(text: str, secret: str) -> None:
    variants = {secret, secret.lower(), secret.upper(), secret[::-1], repr(secret),
                *secret.split("-")}
    assert not any(variant in text for variant in variants)
    assert not set(text) & set(secret.lower() + secret.upper()) - set(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-")
    assert text.isascii()


@pytest.mark.parametrize("field", FIELDS)
def test_an_invalid_env_value_names_field_variable_and_type_only(
        agent_root: Path, field: str) -> None:
    environ = {f"SECRET_{name.upper()}": valid for name, valid in [
        ("formatted", "ok"), ("lowered", "ok"), ("split", "ok"),
        ("ident", "12345678-1234-5678-1234-567812345678"), ("url", "https://example.com"),
        ("count", "3"), ("code", "ok"), ("whole", "ok")]}
    environ[f"SECRET_{field.upper()}"] = CANARY
    text = _load_error(agent_root, environ)
    _assert_no_trace_of(text, CANARY)
    variable = f"SECRET_{field.upper()}"
    where = "(config)" if field == "whole" else field
    assert f"`{where}` (from env " in text
    assert f"`{variable}`" in text
    assert "its message is not shown because it may repeat the secret" in text


def test_every_env_field_invalid_at_once_leaks_nothing(agent_root: Path) -> None:
    text = _load_error(agent_root, {f"SECRET_{f.upper()}": CANARY for f in FIELDS})
    _assert_no_trace_of(text, CANARY)
    for field in FIELDS[:-1]:
        assert f"`{field}` (from env `SECRET_{field.upper()}`)" in text
