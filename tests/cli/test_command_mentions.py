"""Every `eve ...` command line the package names in backticks (hints, messages, the
descriptions of diagnostic codes, docstrings) is one a user can type: its command and
subcommand are visible commands of the typer app (not a hidden old name such as
`eve ext`), and each option it names is an option of that command."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import typer

from eve_build.cli import app
from tests.conftest import REPO

MENTION = re.compile(r"`eve ([^`]+)`")
OPTION = re.compile(r"^-{1,2}[A-Za-z][\w-]*")
PLACEHOLDER = "NAME"  # what an f-string's `{...}` stands for in a mention
OLD_NAME = {("eve_build/cli/ext.py", "ext"), ("eve_build/cli/conventions.py", "ext")}
"""Where the package says that `eve ext` is `eve node`'s old name (kept, hidden)."""


def _text_of(node: ast.AST) -> str | None:
    """The text of a string literal; an f-string's values become PLACEHOLDER."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(part.value if isinstance(part, ast.Constant) else PLACEHOLDER
                       for part in node.values)
    return None


def collect_mentions(package: Path) -> list[tuple[str, str]]:
    """(`file:line`, the words after `eve `) for each backticked `eve ...` in a string
    literal of the package, implicitly joined literals included."""
    found: list[tuple[str, str]] = []
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        inside_fstrings = {id(part) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr)
                           for part in node.values}
        for node in ast.walk(tree):
            if id(node) in inside_fstrings:
                continue
            text = _text_of(node)
            if text is None:
                continue
            where = f"{path.relative_to(package.parent)}:{getattr(node, 'lineno', 0)}"
            found.extend((where, " ".join(m.group(1).split())) for m in MENTION.finditer(text))
    return found


def check_mention(root: Any, words: str) -> str | None:
    """Why `eve WORDS` is no command a user can type, or None when it is."""
    tokens = words.split()
    while tokens and OPTION.match(tokens[0]):  # `eve -q build`: the root's own options
        tokens.pop(0)
    command, path = root, ["eve"]
    while tokens and getattr(command, "commands", None) is not None:
        word = tokens.pop(0)
        names = word.split("|")  # `eve node add|start|stop`: each must be one
        subcommands = [command.commands.get(name) for name in names]
        for name, sub in zip(names, subcommands, strict=True):
            if sub is None or sub.hidden:
                return f"`{' '.join([*path, name])}` is no visible command"
        command, path = subcommands[0], [*path, names[0]]
    if getattr(command, "commands", None) is not None:
        return None  # a group named alone (`eve node`)
    options = {opt for param in command.params for opt in getattr(param, "opts", [])}
    for token in tokens:
        if token == "|":  # a shell pipe or a list of alternatives: the rest is not ours
            break
        option = OPTION.match(token.strip("[]"))
        if option and option.group(0) not in options:
            return f"`{' '.join(path)}` has no option `{option.group(0)}`"
    return None


MENTIONS = collect_mentions(REPO / "eve_build")


def test_the_package_names_commands() -> None:
    """The scan finds what it is for (a scan that found nothing would prove nothing)."""
    words = {words for _, words in MENTIONS}
    assert {"build", "node start NAME", "extension build"} <= words
    assert len(MENTIONS) > 100


def test_the_check_refuses_what_no_user_can_type() -> None:
    root = typer.main.get_command(app)
    assert check_mention(root, "ext start NAME") == "`eve ext` is no visible command"
    assert check_mention(root, "node begin") == "`eve node begin` is no visible command"
    assert check_mention(root, "node add|begin") == "`eve node begin` is no visible command"
    assert check_mention(root, "build --nope") == "`eve build` has no option `--nope`"
    assert check_mention(root, "-q build --no-cache") is None
    assert check_mention(root, "info | head -1") is None


def test_each_command_named_exists() -> None:
    root = typer.main.get_command(app)
    problems = [f"{where}: `eve {words}`: {problem}" for where, words in MENTIONS
                if (where.partition(":")[0], words) not in OLD_NAME
                and not words.startswith("...")  # `eve ... --json`: any command
                and (problem := check_mention(root, words)) is not None]
    assert problems == []
