"""The `[tool.hatch.build.hooks.eve]` table: every wrong option is named."""

from __future__ import annotations

from typing import Any

import pytest

from eve_build.hatch.options import (
    HookOptionError,
    HookOptions,
    derive_isolation_note,
    parse_hook_options,
)

pytestmark = pytest.mark.integration


def test_the_standard_options_are_accepted() -> None:
    options = parse_hook_options({
        "require-runtime-dependencies": True, "require-runtime-features": ["grpc"],
        "dependencies": ["httpx"], "enable-by-default": True,
    })

    assert options == HookOptions(require_runtime_dependencies=True,
                                  require_runtime_features=("grpc",))


def test_an_empty_table_is_valid() -> None:
    assert parse_hook_options({}) == HookOptions()


@pytest.mark.parametrize(("config", "message"), [
    ({"require-runtime-dependency": True},
     r"Option `require-runtime-dependency` for build hook `eve` is unknown"),
    ({"source": "extension"}, r"Option `source` for build hook `eve` is unknown"),
    ({"require-runtime-dependencies": "yes"},
     r"Option `require-runtime-dependencies` for build hook `eve` must be a boolean"),
    ({"enable-by-default": 1},
     r"Option `enable-by-default` for build hook `eve` must be a boolean"),
    ({"dependencies": "httpx"},
     r"Option `dependencies` for build hook `eve` must be an array of strings"),
    ({"require-runtime-features": [1]},
     r"Option `require-runtime-features` for build hook `eve` must be an array of strings"),
])
def test_wrong_options_are_named(config: dict[str, Any], message: str) -> None:
    with pytest.raises(HookOptionError, match=message) as caught:
        parse_hook_options(config)

    assert "\n  hint: " in str(caught.value)
    assert "[tool.hatch.build.hooks.eve]" in caught.value.hint


def test_a_failed_import_without_runtime_dependencies_gets_a_note() -> None:
    without = HookOptions()
    with_deps = HookOptions(require_runtime_dependencies=True)

    assert "require-runtime-dependencies" in derive_isolation_note(without, {"load/import-failed"})
    assert derive_isolation_note(with_deps, {"load/import-failed"}) == ""
    assert derive_isolation_note(without, {"tool/description-missing"}) == ""
