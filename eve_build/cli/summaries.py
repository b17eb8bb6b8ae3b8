"""What the build commands print when they succeed, in one place.

`eve extension build` and `eve build` print through typer (`cli/extension.py`,
`cli/agent.py`) and, in their plain forms, through the fast path (`cli/fast.py`),
which must say exactly the same; so the text is made here, from the results alone.
This module imports no typer, rich or pydantic.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from eve_build.consumer.build import BuildResult as AgentBuild
    from eve_build.consumer.members import MemberStatus
    from eve_build.extension.build import BuildResult


def counted(number: int, noun: str) -> str:
    """`1 file`, `2 files`: a count with its noun in the right number."""
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def shown_path(path: Path) -> str:
    """`path` relative to the working folder when it is inside it."""
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def shown_place(path: Path) -> str:
    """`path` relative to the (resolved) working folder, `.` for itself."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve())) or "."
    except ValueError:
        return str(path)


def describe_extension_built(result: BuildResult) -> str:
    """`Built acme-crm 0.3.0 into build/eve/acme_crm (18 files, 5 tools)`."""
    return (f"Built {result.project.name} {result.project.version} into "
            f"{shown_path(result.package_dir)} ({counted(len(result.files), 'file')}, "
            f"{counted(result.tools, 'tool')})")


def describe_member(member: MemberStatus) -> str:
    """`  acme-crm: built` (or `up to date`): one source-backed extension of the agent."""
    return f"  {member.name}: {'up to date' if member.state == 'up-to-date' else 'built'}"


def describe_agent_built(result: AgentBuild) -> str:
    """`Built the agent in . (5 tools, 2 mounts, 2 subagents) into .eve/...`, counted as
    `eve dev` and `eve info` count (eve_build.dev.loop.count_contributions)."""
    from eve_build.dev.loop import count_contributions

    counts = count_contributions(result.compiled)
    subagents = f", {counted(counts['subagents'], 'subagent')}" if counts["subagents"] else ""
    return (f"Built the agent in {shown_place(result.app_root)} "
            f"({counted(counts['tools'], 'tool')}, {counted(counts['mounts'], 'mount')}"
            f"{subagents}) into {shown_place(result.compiled_path)}"
            + ("" if result.written else " (unchanged)"))
