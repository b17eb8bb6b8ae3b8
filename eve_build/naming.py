"""Names come from paths, here and nowhere else.

Every identity an extension or agent contributes (tool, channel, skill, hook...)
is derived from its file path by the functions below and typed with a NewType, so
that an unchecked string cannot reach a manifest or a namespace prefix.
"""

from __future__ import annotations

import re
from typing import NewType

from eve_build.controls import escape_controls

ContributionName = NewType("ContributionName", str)
"""A slot-local name: `search`, `admin-reset`, `auth/load_profile`."""

QualifiedName = NewType("QualifiedName", str)
"""A name as the agent sees it: `crm__search`, or a root name without prefix."""

Namespace = NewType("Namespace", str)
"""A mount's namespace: the mount file's name, `crm` for `extensions/crm.py`."""

ImportName = NewType("ImportName", str)
"""The generated import package of an extension: `acme_crm` for `acme-crm`."""

MOUNT_SEPARATOR = "__"
SEGMENT_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
TOOL_NAME_LIMIT = 64
TOOL_NAME_WARN = 48
SHOWN_NAME_LIMIT = 80
"""How much of a name a message quotes (a 100 kB name is not echoed whole)."""


def find_segment_problems(segment: str) -> list[str]:
    """What is wrong with one path segment used as a name (empty when fine)."""
    problems: list[str] = []
    shown = derive_shown_name(segment)
    if MOUNT_SEPARATOR in segment:
        problems.append(f"`{shown}` contains `__`, which is reserved as the mount separator")
    if not SEGMENT_PATTERN.fullmatch(segment):  # `match` with `$` let "ok\n" through
        problems.append(
            f"`{shown}` is not a valid name: use lower-case letters, digits, `_` and `-`, "
            "starting with a letter or digit"
        )
    return problems


def find_tool_name_problems(name: str) -> list[str]:
    """The rules of a local or node tool or command name: a segment of at most 64 characters."""
    if not name:
        return ["the name is empty"]
    if len(name) > TOOL_NAME_LIMIT:
        return [f"`{derive_shown_name(name)}` is {len(name)} characters long; at most "
                f"{TOOL_NAME_LIMIT} are allowed"]
    return find_segment_problems(name)


def derive_shown_name(name: str) -> str:
    """`name` as a message may quote it: control characters escaped, at most 80 characters."""
    if len(name) <= SHOWN_NAME_LIMIT:
        return escape_controls(name, layout=False)
    return f"{escape_controls(name[:SHOWN_NAME_LIMIT], layout=False)}... ({len(name)} characters)"


def suggest_segment(segment: str) -> str:
    """A valid spelling close to `segment`, for hints."""
    text = re.sub(r"[^a-z0-9_-]+", "-", segment.lower())
    while MOUNT_SEPARATOR in text:
        text = text.replace(MOUNT_SEPARATOR, "_")
    text = text.strip("-_") or "name"
    return text


def derive_name(segments: list[str], joiner: str) -> ContributionName:
    """Join already-checked path segments into a slot-local name."""
    return ContributionName(joiner.join(segments))


def derive_identifier(name: str) -> str:
    """The Python-safe form of a name, used in generated modules (`-` becomes `_`)."""
    return name.replace("-", "_").replace("/", "_")


def derive_import_name(distribution: str) -> ImportName:
    """`acme-crm` -> `acme_crm`: the generated import package and mount factory name."""
    from packaging.utils import canonicalize_name

    return ImportName(canonicalize_name(distribution).replace("-", "_"))


def derive_qualified(namespace: Namespace | None, name: str) -> QualifiedName:
    """`crm` + `search` -> `crm__search`; no namespace leaves a root name unchanged."""
    if namespace is None:
        return QualifiedName(name)
    return QualifiedName(f"{namespace}{MOUNT_SEPARATOR}{name}")


def split_qualified(name: str) -> tuple[Namespace, ContributionName] | None:
    """`crm__search` -> (`crm`, `search`); None for a name without a namespace."""
    namespace, sep, rest = name.partition(MOUNT_SEPARATOR)
    if not sep or not namespace or not rest:
        return None
    return Namespace(namespace), ContributionName(rest)


def derive_namespace(mount_file_stem: str) -> Namespace:
    return Namespace(mount_file_stem)
