"""extension.config and state resolve to the mount whose contribution runs."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import BaseModel

from eve_build.sdk import define_extension, define_state, define_tool, disable_tool, env
from eve_build.sdk.approval import always
from eve_build.sdk.binding import Binding, UnboundError, bind
from eve_build.sdk.definitions import DisabledTool
from eve_build.sdk.env import MissingEnvError, resolve_env, serialize_deferred


class Config(BaseModel):
    region: str = "eu"


extension = define_extension(config=Config)
counter = define_state("counter", lambda: 0)


def test_config_is_unbound_outside_a_mount() -> None:
    with pytest.raises(UnboundError, match="outside a mounted call"):
        _ = extension.config


def test_two_bindings_see_their_own_config_and_state() -> None:
    crm = Binding(extension, Config(region="us"), "extensions/crm")
    company = Binding(extension, Config(region="eu"), "extensions/company")
    with bind(crm):
        counter.update(lambda n: n + 5)
        with bind(company):
            assert extension.config.region == "eu"
            assert counter.get() == 0
        assert extension.config.region == "us"
        assert counter.get() == 5
    assert crm.states == {"extensions/crm:counter": 5}


def test_bindings_follow_asyncio_tasks() -> None:
    async def read(binding: Binding) -> str:
        with bind(binding):
            await asyncio.sleep(0.01)
            return str(extension.config.region)

    async def both() -> list[str]:
        return list(await asyncio.gather(
            read(Binding(extension, Config(region="a"), "extensions/a")),
            read(Binding(extension, Config(region="b"), "extensions/b")),
        ))

    assert asyncio.run(both()) == ["a", "b"]


def test_another_extensions_binding_does_not_leak() -> None:
    other = define_extension(config=Config)
    with bind(Binding(other, Config(), "extensions/x")), pytest.raises(UnboundError):
        _ = extension.config


def test_replace_keeps_identity_and_changes_fields() -> None:
    tool = define_tool(description="d", input=Config, execute=lambda i, c: None)
    object.__setattr__(tool, "identity", "pkg:tools/t.py")
    changed = tool.replace(approval=always())
    assert changed.identity == "pkg:tools/t.py"
    assert changed.approval == always()
    assert tool.approval is None
    assert isinstance(disable_tool(), DisabledTool)


def test_env_is_deferred_and_serialized_by_name() -> None:
    value = {"key": env("SECRET"), "plain": 1}
    assert serialize_deferred(value) == {"key": {"$env": "SECRET"}, "plain": 1}
    assert resolve_env(value, {"SECRET": "s3"}) == {"key": "s3", "plain": 1}
    with pytest.raises(MissingEnvError, match="SECRET"):
        resolve_env(value, {})
