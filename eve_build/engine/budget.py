"""The time budget of user code imported at build time (DESIGN section 11).

`[tool.eve.extension] import-timeout = 30` (seconds) sets it for an extension build;
the `EVE_IMPORT_TIMEOUT` environment variable overrides it for any command (also
`eve build` and `eve info`, which have no such table). The budget applies to each
module: a worker that reports no progress for that long is stopped.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping

from eve_build.diagnostics import Diagnostic, error

DEFAULT_IMPORT_TIMEOUT = 30.0
ENV_IMPORT_TIMEOUT = "EVE_IMPORT_TIMEOUT"
OPTION = "import-timeout"


def _valid(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        seconds = float(value)
    except ValueError:
        return None
    return seconds if math.isfinite(seconds) and seconds > 0 else None


def parse_import_timeout(table: Mapping[str, object], *, file: str = "pyproject.toml",
                         line: int | None = None) -> tuple[float, list[Diagnostic]]:
    """The `import-timeout` of a `[tool.eve.extension]` table (default when absent)."""
    if OPTION not in table:
        return DEFAULT_IMPORT_TIMEOUT, []
    raw = table[OPTION]
    seconds = _valid(raw) if not isinstance(raw, str) else None
    if seconds is None:
        return DEFAULT_IMPORT_TIMEOUT, [error(
            "engine/budget-invalid", file,
            f"`tool.eve.extension.{OPTION}` must be a positive number of seconds, not {raw!r}",
            f"write it as `{OPTION} = 30`", line=line,
        )]
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
        return configured, [error(
            "engine/budget-invalid", "",
            f"the environment variable {ENV_IMPORT_TIMEOUT} must be a positive number of "
            f"seconds, not {raw!r}",
            f"set it as `{ENV_IMPORT_TIMEOUT}=30`, or unset it to use the default",
        )]
    return seconds, []
