"""The time budget of user code imported at build time (DESIGN section 11).

`[tool.eve.extension] import-timeout = 30` (seconds) sets it for an extension build;
the `EVE_IMPORT_TIMEOUT` environment variable overrides it for any command (also
`eve build` and `eve info`, which have no such table). The budget applies to each
module: a worker that reports no progress for that long is stopped.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from eve_build.diagnostics import Diagnostic
from eve_build.settings import NUMERIC_SETTINGS, SettingError, diagnose_setting, parse_setting

DEFAULT_IMPORT_TIMEOUT = 30.0
ENV_IMPORT_TIMEOUT = "EVE_IMPORT_TIMEOUT"
OPTION = "import-timeout"


PYPROJECT_KEY = f"tool.eve.extension.{OPTION}"


def _valid(value: object, name: str = ENV_IMPORT_TIMEOUT) -> float | None:
    """Seconds in the range of eve_build.settings, or None."""
    if not isinstance(value, int | float | str):
        return None
    try:
        return parse_setting(name, value)
    except SettingError:
        return None


def parse_import_timeout(table: Mapping[str, object], *, file: str = "pyproject.toml",
                         line: int | None = None) -> tuple[float, list[Diagnostic]]:
    """The `import-timeout` of a `[tool.eve.extension]` table (default when absent)."""
    if OPTION not in table:
        return DEFAULT_IMPORT_TIMEOUT, []
    raw = table[OPTION]
    seconds = _valid(raw, PYPROJECT_KEY) if not isinstance(raw, str) else None
    if seconds is None:
        return DEFAULT_IMPORT_TIMEOUT, [diagnose_setting(NUMERIC_SETTINGS[PYPROJECT_KEY], raw,
                                                         file=file, line=line)]
    return seconds, []


def read_import_timeout(configured: float = DEFAULT_IMPORT_TIMEOUT,
                        environ: Mapping[str, str] | None = None
                        ) -> tuple[float, list[Diagnostic]]:
    """`EVE_IMPORT_TIMEOUT` when set (it overrides any configuration), else `configured`."""
    raw = (os.environ if environ is None else environ).get(ENV_IMPORT_TIMEOUT)
    if raw is None or raw == "":
        return configured, []
    seconds = _valid(raw)
    if seconds is None:
        return configured, [diagnose_setting(NUMERIC_SETTINGS[ENV_IMPORT_TIMEOUT], raw)]
    return seconds, []
