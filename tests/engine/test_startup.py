"""The process that builds imports only what it uses, and never the user's code."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

PROBE = """
import json, sys
from pathlib import Path
from eve_build.extension.build import build_extension
from eve_build.consumer.info import describe_agent
build_extension(Path(sys.argv[1]))
described = describe_agent(Path(sys.argv[2]))
heavy = ("jinja2", "yaml", "hatchling", "watchfiles", "typer", "rich")
print(json.dumps({
    "status": described["status"],
    "heavy": sorted(m for m in heavy if m in sys.modules),
    "user": sorted(m for m in sys.modules
                   if m.split(".")[0] in ("gizmo", "eve_agent", "acme_crm")),
}))
"""


def test_building_imports_no_user_code_and_no_unneeded_library(
    copy_fixture: Callable[[str], Path], tmp_path: Path
) -> None:
    extension = copy_fixture("extensions/gizmo")
    app = copy_fixture("apps/flat")
    copy_fixture_into = app / "packages" / "gizmo"
    copy_fixture_into.parent.mkdir()
    extension.rename(copy_fixture_into)
    env = {**os.environ, "EVE_HOME": str(tmp_path / "home")}

    done = subprocess.run([sys.executable, "-c", PROBE, str(copy_fixture_into), str(app)],
                          capture_output=True, text=True, env=env, timeout=120, check=False)

    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["status"] == "ready"
    assert report["user"] == []  # the extension and the agent were imported in workers only
    assert report["heavy"] == []  # no skills: no YAML; no CLI, templates or hatchling
