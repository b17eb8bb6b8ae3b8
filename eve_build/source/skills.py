"""SKILL.md frontmatter: the YAML block between `---` lines at the top."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from eve_build.diagnostics import Diagnostic, error
from eve_build.userfile import UserFileError, read_user_bytes

if TYPE_CHECKING:
    from eve_build.source.layout import SourceLayout


class FrontmatterError(ValueError):
    pass


def parse_frontmatter(text: str) -> dict[str, Any]:
    """The frontmatter mapping, empty when the file has none."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        return {}
    for index in range(1, len(lines)):
        if lines[index].strip() == "---":
            block = "\n".join(lines[1:index])
            import yaml  # here: only an extension with skills pays for importing it

            try:
                data = yaml.safe_load(block) or {}
            except yaml.YAMLError as exc:
                raise FrontmatterError(f"the frontmatter is not valid YAML: {exc}") from exc
            if not isinstance(data, dict):
                raise FrontmatterError("the frontmatter must be a mapping of `key: value`")
            return {str(k): v for k, v in data.items()}
    raise FrontmatterError("the frontmatter opened with `---` is never closed")


def read_skill(path: Path) -> dict[str, Any]:
    return parse_frontmatter(read_markdown(path))


def read_markdown(path: Path) -> str:
    """A markdown file's text; not UTF-8, or a byte order mark in front, is a TextError."""
    try:
        data = read_user_bytes(path, what="skill").data
    except UserFileError as exc:  # a FIFO or a device: reported like bad text
        raise TextError(f"it {exc.why}") from None
    if data.startswith(b"\xef\xbb\xbf"):
        raise TextError("the file starts with a byte order mark (BOM), which agents would "
                        "read as text")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TextError(f"the file is not UTF-8 text (byte {exc.start} is "
                        f"0x{data[exc.start]:02x})") from None


class TextError(FrontmatterError):
    """A markdown file that is not plain UTF-8 text."""


def find_unreadable_instructions(layout: SourceLayout, source: Path,
                                 display: str) -> list[Diagnostic]:
    """instructions.md files that are not UTF-8 or start with a BOM: found here, once,
    rather than by every consumer of the extension."""
    found = []
    for tree in layout.tree.walk():
        if tree.instructions and tree.instructions.endswith(".md"):
            try:
                read_markdown(source / tree.instructions)
            except (TextError, OSError) as exc:
                found.append(error("source/text-invalid", f"{display}{tree.instructions}",
                                   str(exc), "save the file as UTF-8 without a byte order mark"))
    return found
