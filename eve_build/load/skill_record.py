"""A skill's manifest record, checked from its frontmatter: no user code, no pydantic, so
the build process can assemble contributions without importing the checking code."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from eve_build.diagnostics import Diagnostic, error
from eve_build.source.skills import FrontmatterError, TextError, read_skill

Record = dict[str, Any]


class SkillContext(Protocol):
    """Where the skill lives and where its findings go (`load.contributions._Context`)."""

    source: Path
    display: str
    found: list[Diagnostic]
    capabilities: set[str]


def check_skill(ctx: SkillContext, name: str, path: str, packaged: bool,
                assets: tuple[str, ...]) -> Record:
    ctx.capabilities.add("skill")
    shown = f"{ctx.display}{path}"
    try:
        meta = read_skill(ctx.source / path)
    except TextError as exc:
        ctx.found.append(error("source/text-invalid", shown, str(exc),
                               "save the file as UTF-8 without a byte order mark"))
        meta = {}
    except (FrontmatterError, OSError) as exc:
        ctx.found.append(error("skill/frontmatter-invalid", shown, str(exc),
                               "start the file with `---`, `description: ...`, `---`"))
        meta = {}
    description = meta.get("description")
    if description is not None and not isinstance(description, str):
        ctx.found.append(error(
            "skill/description-invalid", shown,
            f"the `description` of the skill `{name}` is a {type(description).__name__}, "
            "not text", "write it as one line of text: `description: <when to use it>`"))
    elif packaged and (not isinstance(description, str) or not description.strip()):
        ctx.found.append(error(
            "skill/description-missing", shown,
            f"the packaged skill `{name}` has no `description` in its frontmatter",
            f"add `description: <when to use this skill>` to the frontmatter of `{shown}`",
        ))
    record: Record = {"name": name, "file": path,
                      "description": description if isinstance(description, str) else ""}
    if packaged:
        record["assets"] = list(assets)
    return record
