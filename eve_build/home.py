"""`$EVE_HOME`: the user's eve folder (local extensions, trust, nodes), default `~/.eve`.

A module of its own, importing nothing of eve-build, so the node process and the host's
local extensions read it the same way without pulling in each other's packages.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

EVE_HOME_VARIABLE = "EVE_HOME"


def locate_eve_home(environ: Mapping[str, str] | None = None) -> Path:
    """`$EVE_HOME`, else `~/.eve`."""
    value = (os.environ if environ is None else environ).get(EVE_HOME_VARIABLE)
    return Path(value).expanduser() if value else Path.home() / ".eve"
