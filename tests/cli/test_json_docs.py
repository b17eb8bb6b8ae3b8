"""docs/reference/json.md names every `status` each command's schema allows."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from eve_build.cli import app
from eve_build.cli.conventions import schema_name, walk_commands
from tests.conftest import REPO

SCHEMAS = REPO / "eve_build" / "schemas"
DOC = REPO / "docs" / "reference" / "json.md"


def test_every_status_of_every_schema_is_in_its_commands_row() -> None:
    rows = {line.split("|")[1].strip(): line.split("|")[2]
            for line in DOC.read_text().splitlines() if line.startswith("| `eve ")}
    undocumented = []
    for path, _ in walk_commands(typer.main.get_command(app)):
        schema = SCHEMAS / schema_name(path)
        if not schema.is_file():
            continue
        statuses = json.loads(schema.read_text())["properties"]["status"].get("enum", [])
        cell = next((c for name, c in rows.items()
                     if name.split("` ")[0].strip("`") == f"eve {' '.join(path)}"), None)
        assert cell is not None, f"docs/reference/json.md has no row for `eve {' '.join(path)}`"
        undocumented += [f"eve {' '.join(path)}: {s}" for s in statuses
                         if s != "failed" and f"`{s}`" not in cell]
    assert undocumented == []


def test_the_table_has_no_blank_line_that_would_end_it() -> None:
    lines = DOC.read_text().splitlines()
    start = lines.index("| command | `status` on success | fields |")
    end = next(i for i in range(start, len(lines)) if not lines[i].startswith("|"))
    assert not any(line.startswith("| `eve ") for line in lines[end:end + 3])
    assert Path(DOC).read_text().count("| `eve add` |") == 1
