"""JSON Schemas of every `eve ... --json` payload, shipped in the package.

One file per command (`build.json`, `extension-build.json`: the command path joined
by `-`), each extending `_envelope.json` (status, diagnostics, error). Documented in
docs/reference/json.md; tests/cli/test_json_contract.py validates real output
against them.

Layer 1 (foundation, data): imports nothing of eve-build.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SCHEMA_DIR = Path(__file__).parent


def read_schema(name: str) -> dict[str, Any]:
    """The schema in `name` (`build.json`), parsed."""
    data: dict[str, Any] = json.loads((SCHEMA_DIR / name).read_text(encoding="utf-8"))
    return data


def list_schemas() -> list[str]:
    """Every schema file name, sorted."""
    return sorted(p.name for p in SCHEMA_DIR.glob("*.json"))
