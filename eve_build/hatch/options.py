"""The options of the `eve` build hook, `[tool.hatch.build.hooks.eve]`, checked.

The hook has no options of its own: what to build comes from `[tool.eve.extension]`,
the one place an extension is configured. The table takes hatchling's standard
build-hook options, and this module checks them with messages that name the option,
so that a typo (`require-runtime-dependency`) fails the build instead of silently
leaving an isolated build without the packages the extension imports.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from eve_build.errors import EveBuildError

PLUGIN_NAME = "eve"
HOOK_TABLE = f"tool.hatch.build.hooks.{PLUGIN_NAME}"

BOOLEAN_OPTIONS = ("enable-by-default", "require-runtime-dependencies")
STRING_LIST_OPTIONS = ("dependencies", "require-runtime-features")
KNOWN_OPTIONS = tuple(sorted((*BOOLEAN_OPTIONS, *STRING_LIST_OPTIONS)))


class HookOptionError(EveBuildError, TypeError):
    """An option in `[tool.hatch.build.hooks.eve]` is unknown or has the wrong type."""

    def __str__(self) -> str:
        # hatchling shows only the exception text: keep the hint in it.
        return f"{self.message}\n  hint: {self.hint}"


@dataclass(frozen=True)
class HookOptions:
    """The checked hook table."""

    require_runtime_dependencies: bool = False
    require_runtime_features: tuple[str, ...] = ()

    @property
    def installs_runtime_dependencies(self) -> bool:
        """Whether an isolated build env gets the project's dependencies."""
        return self.require_runtime_dependencies or bool(self.require_runtime_features)


def parse_hook_options(config: Mapping[str, Any]) -> HookOptions:
    """Check the hook's option table (already merged by hatchling with any target table).

    Raises:
        HookOptionError: an unknown option, or one of the wrong type; the message
            names the option as `Option `NAME` for build hook `eve``.
    """
    for name in sorted(config):
        if name not in KNOWN_OPTIONS:
            raise HookOptionError(
                f"Option `{name}` for build hook `{PLUGIN_NAME}` is unknown",
                f"remove it from `[{HOOK_TABLE}]`; the known options are "
                + ", ".join(f"`{known}`" for known in KNOWN_OPTIONS)
                + " (what to build is set in `[tool.eve.extension]`)",
            )
    for name in BOOLEAN_OPTIONS:
        if name in config and not isinstance(config[name], bool):
            raise HookOptionError(
                f"Option `{name}` for build hook `{PLUGIN_NAME}` must be a boolean",
                f"write it as `{name} = true` under `[{HOOK_TABLE}]`",
            )
    for name in STRING_LIST_OPTIONS:
        value = config.get(name, [])
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise HookOptionError(
                f"Option `{name}` for build hook `{PLUGIN_NAME}` must be an array of strings",
                f'write it as `{name} = ["..."]` under `[{HOOK_TABLE}]`',
            )
    return HookOptions(
        require_runtime_dependencies=bool(config.get("require-runtime-dependencies", False)),
        require_runtime_features=tuple(config.get("require-runtime-features", [])),
    )


def derive_isolation_note(options: HookOptions, codes: set[str]) -> str:
    """A note for a failed build whose imports may have failed for want of dependencies."""
    if options.installs_runtime_dependencies or "load/import-failed" not in codes:
        return ""
    return (
        f"note: `require-runtime-dependencies` is not set in `[{HOOK_TABLE}]`, so an isolated "
        "build (`python -m build`) does not install the project's dependencies before it "
        "imports the extension; set it to `true`"
    )
