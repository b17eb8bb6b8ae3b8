"""Development extensions bundled with eve-build: local extensions `eve dev` loads.

Each module here is a local extension script (docs/local-extensions.md). `eve dev`
loads every one of them beside the agent it serves, after the user's own `-e`
paths, unless `--no-default-extensions` is given. Nothing else loads them: `eve build`
never compiles them into an agent, and `eve serve`, `eve call` and wheels never
carry them (docs/serving.md, "Bundled development extensions").
"""

from __future__ import annotations

from pathlib import Path

BUNDLED_FOLDER = Path(__file__).resolve().parent


def locate_bundled_extensions() -> tuple[Path, ...]:
    """The bundled development extension scripts, sorted by name."""
    return tuple(sorted(p for p in BUNDLED_FOLDER.glob("*.py")
                        if not p.name.startswith("_")))
