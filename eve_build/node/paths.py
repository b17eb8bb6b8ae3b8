"""Where nodes live: `$EVE_HOME` (default `~/.eve`), its `run/` and `logs/` folders."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

RUN_MODE = 0o700
"""The `run/` folder: only its owner may list or enter it."""
SOCKET_MODE = 0o600
"""A node's socket: only its owner may connect."""


def locate_eve_home(environ: Mapping[str, str] | None = None) -> Path:
    """`$EVE_HOME`, else `~/.eve` (as `eve_build.local.discovery` reads it; the node
    process imports this module without loading the runtime that `eve_build.local` pulls in).
    """
    env = os.environ if environ is None else environ
    given = env.get("EVE_HOME")
    return Path(given).expanduser() if given else Path.home() / ".eve"


@dataclass(frozen=True)
class NodePaths:
    """The files of one node under `$EVE_HOME`."""

    home: Path
    name: str

    @property
    def run_dir(self) -> Path:
        return self.home / "run"

    @property
    def socket(self) -> Path:
        return self.run_dir / f"{self.name}.sock"

    @property
    def pid_file(self) -> Path:
        return self.run_dir / f"{self.name}.pid"

    @property
    def log(self) -> Path:
        return self.home / "logs" / f"{self.name}.log"


def registry_path(home: Path) -> Path:
    return home / "nodes.json"


def ensure_run_dir(home: Path) -> Path:
    """Create `run/` with mode 0700 (and tighten it if it exists wider)."""
    run_dir = home / "run"
    run_dir.mkdir(parents=True, exist_ok=True, mode=RUN_MODE)
    if run_dir.stat().st_mode & 0o777 != RUN_MODE:
        run_dir.chmod(RUN_MODE)
    return run_dir
