"""`eve_self`: the agent lists, reads and edits its own sources under `eve dev`.

A bundled development extension (`eve_build.dev.extensions`): `eve dev` loads it,
`--no-default-extensions` leaves it out, `eve build` and `eve serve` never have it.
Its tools work inside the agent folder only (`agent/`, or the app of a flat agent):
`agent_files` lists it, `agent_read` reads one file, `agent_write` replaces one file's
text. Every write asks for approval (`always()`). A path is relative to the agent
folder; an absolute path, a `..` part, a symbolic link on the way, or a file outside the
folder is refused with the reason. After a write, `agent_write` waits for the dev loop's
round that rebuilds the agent (`.eve/dev/status.json`, eve_build.dev.status): a good
build is served from the next turn; a failed one keeps the previous generation and the
call fails with the build's diagnostics, so the model can fix the file.
"""

from __future__ import annotations

import os
import time
from pathlib import Path, PurePosixPath
from typing import Any

from pydantic import BaseModel, Field

from eve_build.sdk import Spec, define_tool
from eve_build.sdk.approval import always

GUIDELINE = ("Under `eve dev` you may change your own sources (tools, skills, instructions, "
             "hooks) in your agent folder: `agent_files` lists them, `agent_read` reads one, "
             "`agent_write` replaces one after the person approves; the rebuilt agent is "
             "used from the next turn, and a failed build is answered with its diagnostics.")
ROUND_WAIT = 120.0
"""Seconds `agent_write` waits for the dev loop's round after a write."""
SKIPPED = {"__pycache__", ".eve", ".git", ".venv", "build", "dist"}
"""Folders `agent_files` never lists (outputs and caches, not sources)."""


class NoInput(BaseModel):
    """`agent_files` takes no arguments."""


class ReadInput(BaseModel):
    path: str = Field(description="A file of the agent folder, relative to it, for example "
                                  "`tools/add.py` or `instructions.md`.")


class WriteInput(BaseModel):
    path: str = Field(description="The file to replace or create, relative to the agent "
                                  "folder, for example `tools/add.py`.")
    text: str = Field(description="The file's whole new text.")


class SourcePathError(ValueError):
    """A path the tools refuse: outside the agent folder, or through a link."""


def locate_agent_folder(app_root: Path) -> Path:
    """The agent folder of the app at `app_root`: `agent/`, or the app itself when flat."""
    folder = app_root / "agent"
    return folder if folder.is_dir() else app_root


def confine(agent_dir: Path, given: str) -> Path:
    """The file `given` names inside `agent_dir`, or raise SourcePathError saying why."""
    text = given.strip().replace("\\", "/")
    relative = PurePosixPath(text)
    if not text or text in (".", "/"):
        raise SourcePathError("give a file of the agent folder, for example `tools/add.py`")
    if relative.is_absolute() or (len(text) > 1 and text[1] == ":"):
        raise SourcePathError(f"`{given}` is absolute: give a path relative to the agent "
                              "folder, for example `tools/add.py`")
    if ".." in relative.parts:
        raise SourcePathError(f"`{given}` leaves the agent folder (`..`): only its own files "
                              "can be read or changed")
    if agent_dir.is_symlink():
        raise SourcePathError("the agent folder is a symbolic link: it cannot be changed "
                              "from here")
    current = agent_dir
    for part in relative.parts:
        current = current / part
        if current.is_symlink():
            shown = current.relative_to(agent_dir).as_posix()
            raise SourcePathError(f"`{shown}` is a symbolic link: links are never followed, "
                                  "so that nothing outside the agent folder is touched")
    root = agent_dir.resolve()
    target = (agent_dir / relative).resolve()
    if target == root or not target.is_relative_to(root):
        raise SourcePathError(f"`{given}` is not a file inside the agent folder")
    if SKIPPED & set(relative.parts):
        raise SourcePathError(f"`{given}` is in an output or cache folder, not a source")
    return agent_dir / relative


def list_sources(agent_dir: Path) -> list[str]:
    """The agent folder's files (no links, no outputs or caches), sorted."""
    found: list[str] = []
    for folder, dirs, files in os.walk(agent_dir):
        base = Path(folder)
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED and not d.startswith(".")
                         and not (base / d).is_symlink())
        found.extend((base / name).relative_to(agent_dir).as_posix() for name in files
                     if not name.endswith((".pyc", "~")) and not (base / name).is_symlink())
    return sorted(found)


def wait_for_round(app_root: Path, before: int | None, wait: float = ROUND_WAIT
                   ) -> dict[str, Any] | None:
    """The status of the first round after generation `before` once the server has
    taken it in (its `serving` set: the new generation, or the kept one), or None."""
    from eve_build.dev.status import read_status

    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        status = read_status(app_root) or {}
        number = status.get("generation")
        if (isinstance(number, int) and (before is None or number > before)
                and status.get("serving") is not None):
            return status
        time.sleep(0.1)
    return None


def describe_round(path: str, status: dict[str, Any] | None) -> dict[str, Any]:
    """What `agent_write` answers: the round's result, or raise with its diagnostics."""
    if status is None:
        return {"path": path, "written": True, "rebuilt": False,
                "note": "no rebuild was seen: is `eve dev` running for this agent?"}
    problems = [d for d in status.get("diagnostics") or [] if d.get("severity") == "error"]
    if status.get("status") != "ready":
        lines = [f"{d.get('file')}:{d.get('line')}: {d.get('code')}: {d.get('message')}"
                 + (f" (hint: {d['hint']})" if d.get("hint") else "") for d in problems]
        raise RuntimeError(
            f"`{path}` was written, but generation {status.get('generation')} failed to build; "
            f"generation {status.get('serving')} keeps running. Fix the file: "
            + ("; ".join(lines) or "the build failed without a diagnostic"))
    return {"path": path, "written": True, "rebuilt": True,
            "generation": status.get("generation"), "serving": status.get("serving"),
            "note": "the rebuilt agent is used from the next turn"}


def setup(ctx: Any) -> Spec:
    app_root = Path(ctx.cwd)
    agent_dir = locate_agent_folder(app_root)

    def agent_files(input: NoInput, tool_ctx: Any) -> dict[str, Any]:
        del input, tool_ctx
        return {"folder": agent_dir.name if agent_dir != app_root else ".",
                "files": list_sources(agent_dir)}

    def agent_read(input: ReadInput, tool_ctx: Any) -> str:
        del tool_ctx
        target = confine(agent_dir, input.path)
        if not target.is_file():
            raise SourcePathError(f"`{input.path}` is not a file of the agent folder; "
                                  "`agent_files` lists them")
        return target.read_text(encoding="utf-8", errors="replace")

    def agent_write(input: WriteInput, tool_ctx: Any) -> dict[str, Any]:
        from eve_build.dev.status import read_status

        target = confine(agent_dir, input.path)
        if target.exists() and not target.is_file():
            raise SourcePathError(f"`{input.path}` is a folder, not a file")
        before = (read_status(app_root) or {}).get("generation")
        target.parent.mkdir(parents=True, exist_ok=True)
        # written beside the dev status (an output folder the watcher ignores), then
        # moved in: one change the watcher sees, never half a file
        temporary = app_root / ".eve" / "dev" / f"{target.name}.eve-self"
        temporary.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_text(input.text, encoding="utf-8")
        temporary.replace(target)
        tool_ctx.report_progress(f"wrote {input.path}; waiting for the rebuild")
        return describe_round(input.path, wait_for_round(
            app_root, before if isinstance(before, int) else None))

    return Spec(
        tools={
            "agent_files": define_tool(
                description="List the files of your own agent folder (tools, skills, "
                            "instructions, hooks), relative to it.",
                input=NoInput, execute=agent_files),
            "agent_read": define_tool(
                description="Read one file of your own agent folder.",
                input=ReadInput, execute=agent_read),
            "agent_write": define_tool(
                description="Replace (or create) one file of your own agent folder with "
                            "new text; asks for approval, then waits for `eve dev` to "
                            "rebuild: the new agent is used from the next turn, a failed "
                            "build answers with its diagnostics.",
                input=WriteInput, execute=agent_write, approval=always(),
                timeout=ROUND_WAIT + 30),
        },
        guidelines=[GUIDELINE],
    )
