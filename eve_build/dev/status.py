"""What `eve dev` last did, in `.eve/dev/status.json`, for the bundled `eve_dev` extension.

The dev loop writes the file after every round (and, when serving, after the round's
agent was loaded or refused); the `dev_status` tool of the bundled development
extension reads it, with the compiled agent, when the agent asks. A file, not shared
memory: written atomically beside the build's other outputs, it says the same to the
served agent, to `eve call -e ...` and to a person with `cat`.

    {"formatVersion": 1, "generation": 3, "status": "ready", "changed": [...],
     "rebuilt": [...], "upgrades": [...], "contributions": {...}, "diagnostics": [...],
     "serving": 3, "lastGood": 3}
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from eve_build.diagnostics import Diagnostic

if TYPE_CHECKING:
    from eve_build.dev.loop import Generation

STATUS_FILE = Path(".eve") / "dev" / "status.json"
STATUS_FORMAT_VERSION = 1


def derive_status(generation: Generation, *, last_good: int | None,
                  problems: Iterable[Diagnostic] = (), serving: int | None = None
                  ) -> dict[str, Any]:
    """The status document of one round; `problems`: why its agent does not load."""
    found = [*generation.diagnostics, *problems]
    loads = generation.ok and not any(p.is_error for p in problems)
    return {
        "formatVersion": STATUS_FORMAT_VERSION,
        "generation": generation.number,
        "status": "ready" if loads else "failed",
        "changed": list(generation.changed),
        "rebuilt": list(generation.rebuilt),
        "upgrades": list(generation.upgrades),
        "contributions": dict(generation.contributions),
        "diagnostics": [d.to_json() for d in found],
        "serving": serving,
        "lastGood": last_good,
    }


def write_status(app_root: Path, status: dict[str, Any]) -> None:
    """Replace `.eve/dev/status.json` atomically (readers never see half a file)."""
    from eve_build.consumer.build import replace_file

    text = json.dumps(status, indent=2, sort_keys=False, allow_nan=False) + "\n"
    replace_file(app_root / STATUS_FILE, text.encode("utf-8"))


def read_status(app_root: Path) -> dict[str, Any] | None:
    """The last status `eve dev` wrote here, or None (no dev loop ran, or a broken file)."""
    try:
        data = json.loads((app_root / STATUS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None
