"""The extension package name `eve extension init NAME` accepts.

NAME is the distribution name (`acme-crm`); its import name (`acme_crm`) becomes
the generated package and mount factory, so it must also be a Python identifier
that does not shadow the standard library or eve-build's own names.
"""

from __future__ import annotations

import keyword
import re
import sys

from eve_build.errors import UsageError
from eve_build.naming import MOUNT_SEPARATOR, derive_import_name, derive_shown_name

NAME_PATTERN = re.compile(r"^[a-z]([a-z0-9_-]*[a-z0-9])?$")
RESERVED_IMPORT_NAMES = frozenset({"eve_build", "extension", "tests", "build", "dist"})
"""Import names that would clash with eve-build itself or with the scaffold's folders."""
MAX_NAME_LENGTH = 64
"""The longest NAME: it names folders and files, and prefixes every mounted tool."""


def find_name_problems(name: str) -> list[str]:
    """What is wrong with `name` as an extension package name (empty when fine)."""
    if not name:
        return ["it is empty"]
    if len(name) > MAX_NAME_LENGTH:
        return [f"it is {len(name)} characters long; at most {MAX_NAME_LENGTH} are allowed"]
    problems: list[str] = []
    if name != name.lower():
        problems.append("it has upper-case letters")
    invalid = sorted({char for char in name.lower() if not re.match(r"[a-z0-9_-]", char)})
    if invalid:
        shown = ", ".join(f"`{char}`" for char in invalid)
        problems.append(f"it contains {shown}; only letters, digits, `-` and `_` are allowed")
    if not name[0].isalpha() or not name[0].isascii():
        problems.append("it does not start with a letter")
    if name[-1] in "-_":
        problems.append("it ends with `-` or `_`")
    if MOUNT_SEPARATOR in name:
        problems.append("it contains `__`, which is reserved as the mount separator")
    if problems or not NAME_PATTERN.match(name):
        return problems or ["it is not a valid distribution name"]
    import_name = str(derive_import_name(name))
    if keyword.iskeyword(import_name):
        problems.append(f"its import name `{import_name}` is a Python keyword")
    elif import_name in sys.stdlib_module_names:
        problems.append(f"its import name `{import_name}` would shadow the standard library")
    elif import_name in RESERVED_IMPORT_NAMES:
        problems.append(f"its import name `{import_name}` is reserved by eve-build")
    return problems


def suggest_name(name: str) -> str:
    """A valid spelling close to `name`, for hints (`My CRM!` -> `my-crm`)."""
    text = re.sub(r"[^a-z0-9_-]+", "-", name.lower())
    text = re.sub(r"_{2,}", "_", text)
    text = re.sub(r"^[^a-z]+", "", text)[:MAX_NAME_LENGTH].rstrip("-_")
    if not text:
        return "my-extension"
    if find_name_problems(text):
        text = f"{text}-ext"
    return text if not find_name_problems(text) else "my-extension"


def parse_extension_name(name: str, what: str = "extension") -> str:
    """Return `name` unchanged when it can name an extension package (or, `what`
    being `agent project`, an agent project: the same rules, one owner).

    Raises:
        UsageError: naming each problem, with a valid suggestion as the hint.
    """
    problems = find_name_problems(name)
    if not problems:
        return name
    raise UsageError(
        f"`{derive_shown_name(name)}` is not a valid {what} name: {'; '.join(problems)}",
        hint=(
            "use lower-case letters, digits, `-` and `_`, starting with a letter, "
            f"for example `{suggest_name(name)}`"
        ),
    )
