"""Where nodes live: `$EVE_HOME` (default `~/.eve`), its `run/` and `logs/` folders."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from eve_build.home import locate_eve_home as locate_eve_home

RUN_MODE = 0o700
"""The `run/` folder: only its owner may list or enter it."""
SOCKET_MODE = 0o600
"""A node's socket: only its owner may connect."""


@dataclass(frozen=True)
class NodePaths:
    """The files of one node under `$EVE_HOME`."""

    home: Path
    name: str

    def __post_init__(self) -> None:  # the registry checks names; this is the last guard
        if not self.name or "/" in self.name or "\x00" in self.name or self.name.startswith("."):
            raise ValueError(f"not a node name: {self.name[:80]!r}")

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
