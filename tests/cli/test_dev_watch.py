"""`eve dev` for real: an editor's temporary files start no round, and a save prints the
generation line only (no `INFO: 1 change detected` from watchfiles)."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
from pathlib import Path

from eve_build.dev.loop import is_source_change
from tests.runtime.apps import make_app, mount_file
from tests.waiting import stop_process

TOOL = """\
from pydantic import BaseModel

from eve_build.sdk import define_tool


class PingInput(BaseModel):
    pass


def execute(input: PingInput, ctx) -> str:
    return "{answer}"


tool = define_tool(description="Ping.", input=PingInput, execute=execute)
"""


def test_editor_temporary_files_are_not_sources() -> None:
    for name in ("#ping.py#", ".#ping.py", "4913", "ping.py.tmp", "ping.py.tmp.4242",
                 ".goutputstream-Q1W2E3", "ping.py.kate-swp", "ping.py.crswap", "ping.py~",
                 ".ping.py.swp", "ping.py.bak", "sedjx5h7n", "sedAB12cd"):
        assert not is_source_change(Path("agent/tools") / name), name
    for name in ("ping.py", "temp.py", "backup_tool.py", "sed.py", "sedative.py"):
        assert is_source_change(Path("agent/tools") / name), name


def test_a_save_prints_one_generation_and_no_watcher_log(tmp_path: Path) -> None:
    root = make_app(tmp_path / "app", ["gizmo"], {"extensions/gizmo.py": mount_file("gizmo"),
                                                  "tools/ping.py": TOOL.format(answer="one")})
    env = {**os.environ, "EVE_HOME": str(tmp_path / "home"), "NO_COLOR": "1"}
    process = subprocess.Popen(
        [sys.executable, "-m", "eve_build", "dev", "--json", "--port", "0", "--path",
         str(root)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert process.stdout is not None
        lines: queue.Queue[str] = queue.Queue()
        out = process.stdout
        threading.Thread(target=lambda: [lines.put(text) for text in out], daemon=True).start()
        first = [json.loads(lines.get(timeout=60))["status"] for _ in range(2)]
        assert sorted(first) == ["ready", "serving"]
        tools = root / "agent" / "tools"
        second = None
        for _ in range(30):  # the watcher starts just after the first round: save until seen
            (tools / "ping.py").write_text(TOOL.format(answer="two"))
            try:
                second = json.loads(lines.get(timeout=2))
                break
            except queue.Empty:
                continue
        assert second is not None and second["generation"] == 2
        (tools / "#ping.py#").write_text("half an edit")  # emacs, vim, atomic saves
        (tools / "4913").write_text("")
        (tools / "ping.py.tmp.77").write_text("x")
        (tools / "pong.py").write_text(TOOL.format(answer="three"))
        # The re-saves above may have queued more rounds of ping.py (a slow machine sees a
        # save after the 2 s wait): skip those, up to the round of the new file.
        extra = []
        while True:
            third = json.loads(lines.get(timeout=60))
            if third.get("changed") == ["agent/tools/ping.py"]:
                extra.append(third)
                continue
            break
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            stderr = process.communicate(timeout=60)[1]
        except subprocess.TimeoutExpired:
            process.kill()
            stderr = process.communicate(timeout=60)[1]

    # the temporary files, written before it, are neither a round nor part of this one
    assert (third["status"], third["generation"]) == ("ready", 3 + len(extra))
    assert third["changed"] == ["agent/tools/pong.py"]
    assert [e["generation"] for e in extra] == list(range(3, 3 + len(extra)))
    assert "change detected" not in stderr and "changes detected" not in stderr


def test_after_a_member_edit_the_next_generation_loads(tmp_path: Path) -> None:
    """A dependency added to a member's pyproject.toml changes no output file; the round
    still settles it (the freshness record), so the generation loads instead of failing
    with runtime/extension-changed, and so does the one after the next edit."""
    root = make_app(tmp_path / "app", ["gizmo"], {"extensions/gizmo.py": mount_file("gizmo")})
    member = root / "extensions" / "gizmo"
    pyproject = member / "pyproject.toml"
    edited = pyproject.read_text().replace('"pydantic>=2"', '"pydantic>=2", "anyio"')
    assert edited != pyproject.read_text()
    env = {**os.environ, "EVE_HOME": str(tmp_path / "home"), "NO_COLOR": "1"}
    process = subprocess.Popen(
        [sys.executable, "-m", "eve_build", "dev", "--json", "--port", "0", "--path",
         str(root)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert process.stdout is not None
        lines: queue.Queue[str] = queue.Queue()
        out = process.stdout
        threading.Thread(target=lambda: [lines.put(text) for text in out], daemon=True).start()
        first = [json.loads(lines.get(timeout=60))["status"] for _ in range(2)]
        assert sorted(first) == ["ready", "serving"]
        second = None
        for _ in range(30):  # the watcher starts just after the first round: save until seen
            pyproject.write_text(edited)
            try:
                second = json.loads(lines.get(timeout=2))
                break
            except queue.Empty:
                continue
        assert second is not None
        spin = member / "extension" / "tools" / "spin.py"
        spin.write_text(spin.read_text() + "\n# edited\n")
        third = json.loads(lines.get(timeout=60))
    finally:
        stop_process(process, signal.SIGTERM)

    assert (second["status"], second["generation"], second["rebuilt"]) == ("ready", 2, ["gizmo"])
    assert (third["status"], third["generation"], third["rebuilt"]) == ("ready", 3, ["gizmo"])


def test_sed_in_place_is_one_change_of_the_file(tmp_path: Path) -> None:
    """`sed -i` writes `sedXXXXXX` beside the file and renames it over the file: the round
    names the file only, never the temporary name."""
    root = make_app(tmp_path / "app", ["gizmo"], {"extensions/gizmo.py": mount_file("gizmo"),
                                                  "tools/ping.py": TOOL.format(answer="one")})
    env = {**os.environ, "EVE_HOME": str(tmp_path / "home"), "NO_COLOR": "1"}
    process = subprocess.Popen(
        [sys.executable, "-m", "eve_build", "dev", "--json", "--no-serve", "--path",
         str(root)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    ping = root / "agent" / "tools" / "ping.py"
    rounds = []
    try:
        assert process.stdout is not None
        lines: queue.Queue[str] = queue.Queue()
        out = process.stdout
        threading.Thread(target=lambda: [lines.put(text) for text in out], daemon=True).start()
        assert json.loads(lines.get(timeout=60))["generation"] == 1
        for attempt in range(30):  # the watcher starts just after the first round
            subprocess.run(["sed", "-i", f"s/return .*/return \"{attempt}\"/", str(ping)],
                           check=True)
            try:
                rounds.append(json.loads(lines.get(timeout=2)))
                break
            except queue.Empty:
                continue
        assert rounds, "no round after `sed -i`"
    finally:
        stop_process(process, signal.SIGINT)

    assert rounds[0]["status"] == "ready"
    assert rounds[0]["changed"] == ["agent/tools/ping.py"]
    assert sorted(p.name for p in ping.parent.iterdir() if p.name != "__pycache__") == [
        "ping.py"]  # sed's temporary file was renamed over it
