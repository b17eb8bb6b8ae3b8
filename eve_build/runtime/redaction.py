"""The values `env(...)` resolved never leave the host in an error, a trace or a log line.

    redactor = derive_redactor({"CRM_API_KEY": "sk-live-123"})
    redactor.redact("key is sk-live-123")     # 'key is [redacted env CRM_API_KEY]'

Each value is replaced in three spellings: as it is, escaped the way `repr()`
writes it and escaped the way JSON writes it (both with and without
`ensure_ascii`), so a secret holding a quote, a backslash or a non-ASCII letter is
caught in an exception's `repr`, in a JSON error body and in plain text alike.
Values shorter than MIN_LENGTH are not redacted: they cannot be kept secret by
hiding them, and replacing every `us` or `1` would garble every message
(docs/decisions.md). One Redactor per loaded agent (`Agent.redactor`), fed by its
mounts' env values; `redact_known()` uses the union of every agent loaded in this
process, for the exits that sit outside an agent (the serve barrier, the last resort).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from eve_build.diagnostics import Diagnostic
from eve_build.sdk.env import ENV_MARKER, Env, is_env_json
from eve_build.sdk.mount import ToolResult

MIN_LENGTH = 4
"""Values shorter than this are not redacted (the config-error redaction uses the same)."""


@dataclass(frozen=True)
class Redactor:
    """Replaces every spelling of every secret value with `[redacted env NAME]`."""

    names: Mapping[str, str] = field(default_factory=dict)  # spelling -> variable name
    pattern: re.Pattern[str] | None = None

    def redact(self, text: str) -> str:
        if self.pattern is None or not text:
            return text
        return self.pattern.sub(lambda found: f"[redacted env {self.names[found[0]]}]", text)

    def redact_data(self, value: Any) -> Any:
        """Every string inside JSON-like data redacted (dict keys too)."""
        if self.pattern is None:
            return value
        if isinstance(value, str):
            return self.redact(value)
        if isinstance(value, Mapping):
            return {self.redact_data(k): self.redact_data(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return type(value)(self.redact_data(item) for item in value)
        return value

    def redact_result(self, result: ToolResult) -> ToolResult:
        """The error, the trace and the progress of a call redacted (the value is the
        tool's data, given to the caller as it is). On the hot path: an ok call whose
        trace holds no free text is returned as it is."""
        if self.pattern is None:
            return result
        error = None if result.error is None else self.redact(result.error)
        progress = tuple(self.redact(text) for text in result.progress)
        trace = result.trace
        if any(key in entry for entry in trace for key in TRACE_TEXT):
            trace = tuple({**entry, **{key: self.redact_data(entry[key]) for key in TRACE_TEXT
                                       if key in entry}} for entry in trace)
        if error == result.error and progress == result.progress and trace is result.trace:
            return result
        return replace(result, error=error, trace=trace, progress=progress)


TRACE_TEXT = ("reason", "warning", "before", "after", "reply")
"""The keys of a trace entry that may hold text from user code (the others are names,
outcomes and times)."""


def derive_redactor(values: Mapping[str, str] | Iterable[tuple[str, str]]) -> Redactor:
    """The redactor of `values` (variable name -> value, or such pairs)."""
    pairs = values.items() if isinstance(values, Mapping) else values
    names: dict[str, str] = {}
    for name, value in sorted(pairs):
        if len(value) >= MIN_LENGTH:
            for spelling in derive_spellings(value):
                names.setdefault(spelling, name)
    if not names:
        return Redactor()
    longest_first = sorted(names, key=len, reverse=True)  # a secret inside another one
    return Redactor(names, re.compile("|".join(map(re.escape, longest_first))))


def redact_diagnostics(found: list[Diagnostic], values: Mapping[str, str]) -> list[Diagnostic]:
    """`found` with the message and hint of each diagnostic redacted of `values`."""
    redactor = derive_redactor(values)
    if redactor.pattern is None:
        return found
    return [replace(d, message=redactor.redact(d.message), hint=redactor.redact(d.hint))
            for d in found]


def derive_spellings(value: str) -> list[str]:
    """`value` as written, repr-escaped, JSON-escaped (ASCII and not), without quotes."""
    spellings = [value, repr(value)[1:-1], json.dumps(value)[1:-1],
                 json.dumps(value, ensure_ascii=False)[1:-1],
                 repr(value.encode("utf-8", "surrogateescape"))[2:-1]]
    if "'" in value:  # repr() switched to double quotes; a str.format('%r') may not have
        spellings.append(value.replace("\\", "\\\\").replace("'", "\\'"))
    return list(dict.fromkeys(spellings))


def find_env_values(config: Any, environ: Mapping[str, str]) -> dict[str, str]:
    """Variable name -> value of every env(...) in a mount's config that `environ` sets."""
    found: dict[str, str] = {}

    def walk(item: Any) -> None:
        if isinstance(item, Env) or is_env_json(item):
            name = item.name if isinstance(item, Env) else str(item[ENV_MARKER])
            if name in environ:
                found[name] = environ[name]
        elif isinstance(item, Mapping):
            for child in item.values():
                walk(child)
        elif isinstance(item, list | tuple):
            for child in item:
                walk(child)

    walk(config)
    return found


URL_CREDENTIALS = re.compile(r"(\b[A-Za-z][A-Za-z0-9+.-]*://)([^/?#\s@]*)@")
"""The user-info of a URL (`http://USER:PASSWORD@host`): everything before the `@`."""


def redact_url_credentials(text: str) -> str:
    """`text` with the password of every URL in it replaced by `***` (a user name alone,
    which is often a token, too): `http://u:SECRET@host/v1` -> `http://u:***@host/v1`."""
    def hide(found: re.Match[str]) -> str:
        user, colon, _ = found[2].partition(":")
        return f"{found[1]}{user}:***@" if colon else f"{found[1]}***@"

    return URL_CREDENTIALS.sub(hide, text)


_KNOWN: set[tuple[str, str]] = set()
_UNION: list[Redactor] = [Redactor()]


def remember(values: Mapping[str, str]) -> None:
    """Add an agent's env values to the process-wide redactor."""
    new = set(values.items()) - _KNOWN
    if new:
        _KNOWN.update(new)
        _UNION[0] = derive_redactor(_KNOWN)


def redact_known(text: str) -> str:
    """`text` with every env value any agent of this process resolved redacted."""
    return _UNION[0].redact(text)
