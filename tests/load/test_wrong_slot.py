"""A definition in the wrong slot folder is named as what it is, with the file, the line
and where it belongs (`channel = define_channel(...)` in tools/ is a channel), in a real
`eve build`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.runtime.apps import make_app

CHANNEL = '''\
from eve_build.sdk import define_channel


def handle(request, ctx):
    return {"ok": True}


channel = define_channel(route="/hook", handle=handle, method="POST")
'''
HOOK = '''\
from eve_build.sdk import define_hook

{name} = define_hook(events={{"action.call": lambda event, ctx: None}})
'''
SCHEDULE = '''\
from eve_build.sdk import define_schedule

schedule = define_schedule(cron="0 * * * *", run=lambda ctx: None)
'''


def _build(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "eve_build", "build", "--path", str(root)],
                          capture_output=True, text=True, timeout=300, check=False,
                          env={**os.environ, "NO_COLOR": "1", "EVE_HOME": str(root / "home")})


@pytest.mark.parametrize(("file", "text", "expected"), [
    ("tools/webhook.py", CHANNEL,
     "agent/tools/webhook.py:8: error load/definition-wrong-slot: `agent/tools/webhook.py` "
     "defines a channel (`channel = define_channel(...)`), but `tools/` holds tools\n"
     "  hint: move the file to `agent/channels/webhook.py`: each slot folder holds one kind"),
    ("tools/guard.py", HOOK.format(name="hook"),
     "agent/tools/guard.py:3: error load/definition-wrong-slot: `agent/tools/guard.py` "
     "defines a hook (`hook = define_hook(...)`), but `tools/` holds tools\n"
     "  hint: move the file to `agent/hooks/guard.py`: each slot folder holds one kind"),
    ("hooks/nightly.py", SCHEDULE,
     "agent/hooks/nightly.py:3: error load/definition-wrong-slot: `agent/hooks/nightly.py` "
     "defines a schedule (`schedule = define_schedule(...)`), but `hooks/` holds hooks\n"
     "  hint: move the file to `agent/schedules/nightly.py`: each slot folder holds one kind"),
    ("subagents/helper/tools/webhook.py", CHANNEL,
     "agent/subagents/helper/tools/webhook.py:8: error load/definition-wrong-slot: "
     "`agent/subagents/helper/tools/webhook.py` defines a channel "
     "(`channel = define_channel(...)`), but `tools/` holds tools\n"
     "  hint: move the file to `agent/subagents/helper/channels/webhook.py`: each slot "
     "folder holds one kind"),
    ("tools/guard.py", HOOK.format(name="tool"),
     "agent/tools/guard.py:3: error load/definition-wrong-kind: `tool` is define_hook(), but "
     "this slot takes define_tool() or define_dynamic()\n"
     "  hint: use define_tool(...) here, or move the file to `agent/hooks/guard.py` and bind "
     "it to `hook`"),
])
def test_a_definition_in_another_slot_is_named_with_where_it_belongs(
        tmp_path: Path, file: str, text: str, expected: str) -> None:
    files = {file: text}
    if file.startswith("subagents/helper/"):
        files["subagents/helper/agent.py"] = (
            'from eve_build.sdk import define_agent\n\nagent = define_agent(description="H")\n')
        files["subagents/helper/instructions.md"] = "You help.\n"
    (tmp_path / "app").mkdir()
    root = make_app(tmp_path / "app", [], files)

    done = _build(root)

    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert expected in done.stderr, done.stderr
    assert "load/definition-missing" not in done.stderr
