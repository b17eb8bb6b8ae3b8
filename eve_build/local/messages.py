"""`eve message TEXT`: input hooks, then `/name args` commands, then `/skill:name` expansion.

    message.start -> message.received hooks -> handled? reply
                                             -> `/name args`: the local command's reply
                                             -> `/skill:name rest`: the skill, then rest
                                             -> turn.start, turn.end (the text a turn gets)
    -> message.end

There is no model here: a message that reaches a turn reports the text the turn
would start with. Observers see every event; they never change the outcome.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eve_build.errors import EveBuildError
from eve_build.local.layer import CommandReply
from eve_build.runtime.agent import Agent
from eve_build.runtime.events import emit
from eve_build.userfile import read_user_text

SKILL_PREFIX = "/skill:"


@dataclass(frozen=True)
class MessageOutcome:
    """`outcome`: `handled` (a hook answered), `command` (a command replied; `ok` says
    whether it raised) or `turn` (`text` is what the turn would start with)."""

    outcome: str
    text: str
    ok: bool = True
    command: CommandReply | None = None
    trace: tuple[dict[str, Any], ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"outcome": self.outcome, "status": "ok" if self.ok else "error",
                                "text": self.text}
        if self.command is not None:
            data["command"] = self.command.command
            data["extension"] = self.command.extension
        data["trace"] = list(self.trace)
        return data


async def ahandle_message(agent: Agent, text: str, app_root: Path) -> MessageOutcome:
    pipeline = agent.surface().pipeline
    await emit(pipeline, "message.start", text=text)
    result = await aroute_message(agent, text, app_root)
    if result.outcome == "turn":
        await emit(pipeline, "turn.start", text=result.text)
        await emit(pipeline, "turn.end", text=result.text)
    await emit(pipeline, "message.end", text=result.text, outcome=result.outcome)
    return result


async def aroute_message(agent: Agent, text: str, app_root: Path) -> MessageOutcome:
    """The `message.received` hooks, then command dispatch and skill expansion; no events
    of its own (a session emits the message and turn events around it)."""
    received = await agent.afire("message.received", text=text)
    if received.outcome == "handled":
        return MessageOutcome("handled", str(received.value), trace=received.trace)
    return await _dispatch(agent, str(received.value), app_root, received.trace)


def handle_message(agent: Agent, text: str, app_root: Path) -> MessageOutcome:
    return agent._run(ahandle_message(agent, text, app_root))


async def _dispatch(agent: Agent, text: str, app_root: Path,
                    trace: tuple[dict[str, Any], ...]) -> MessageOutcome:
    if text.startswith(SKILL_PREFIX):
        name, _, rest = text[len(SKILL_PREFIX):].partition(" ")
        return MessageOutcome("turn", expand_skill(agent, app_root, name, rest.strip()),
                              trace=trace)
    if text.startswith("/") and len(text) > 1 and not text.startswith("//"):
        name, _, args = text[1:].partition(" ")
        reply = await agent.arun_command(name, args.strip())
        return MessageOutcome("command", reply.text, reply.ok, reply, trace)
    return MessageOutcome("turn", text, trace=trace)


class SkillNotFoundError(EveBuildError):
    """`/skill:NAME` names no skill of the agent."""


def expand_skill(agent: Agent, app_root: Path, name: str, rest: str) -> str:
    """The skill's body (frontmatter left out) in a `<skill>` block, then `rest`."""
    skills = {s.name: s for s in agent.compiled.root.skills}
    skill = skills.get(name)
    if skill is None:
        known = ", ".join(f"`{s}`" for s in sorted(skills)) or "none"
        raise SkillNotFoundError(f"the agent has no skill `{name}`", f"skills: {known}")
    path = _locate_skill(agent, app_root, skill.file, skill.mount_path)
    if path is None:
        raise EveBuildError(f"the file of skill `{name}` (`{skill.file}`) is not there",
                            "run `eve build` again")
    body = _strip_frontmatter(read_user_text(path, what="skill")).strip()
    block = f'<skill name="{name}">\n{body}\n</skill>'
    return f"{block}\n\n{rest}" if rest else block


def _locate_skill(agent: Agent, app_root: Path, file: str, mount_path: str | None
                  ) -> Path | None:
    candidates = [app_root / file]
    imports = {m.mount_path: m.import_name for m in agent.compiled.root.mounts}
    import_name = imports.get(mount_path or "")
    if import_name and file.startswith(f"{import_name}/"):
        spec = importlib.util.find_spec(import_name)
        locations = (spec.submodule_search_locations or []) if spec else []
        candidates.extend(Path(location).parent / file for location in locations)
    for path in candidates:
        if path.is_file():
            return path
        if (path / "SKILL.md").is_file():
            return path / "SKILL.md"
    return None


def _strip_frontmatter(text: str) -> str:
    lines = text.splitlines()
    if lines and lines[0].strip() == "---":
        for index in range(1, len(lines)):
            if lines[index].strip() == "---":
                return "\n".join(lines[index + 1:])
    return text
