"""The `ctx` a local extension gets, and the session it writes to.

One `LocalSession` lives as long as the agent (across reloads): the notices
(`ctx.notify`), the queued user messages (`ctx.send_user_message`) and each
extension's appended entries (`ctx.append_entry`, saved in the snapshot under
`local` -> name -> `entries`). The host reads and reports them; nothing here prints.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import MutableMapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eve_build.errors import EveBuildError
from eve_build.sdk.binding import ToolContext

logger = logging.getLogger("eve_build.local")
logger.addHandler(logging.NullHandler())
LEVELS = ("info", "warning", "error")


@dataclass(frozen=True)
class Notice:
    """A `ctx.notify(text, level)` or a `ctx.send_user_message(text)` of one extension."""

    extension: str
    text: str
    level: str = "info"


@dataclass
class LocalSession:
    notices: list[Notice] = field(default_factory=list)
    messages: list[Notice] = field(default_factory=list)
    # a dict, or the session store's (eve_build.session.states.StoreEntries) under eve serve
    entries: MutableMapping[str, list[dict[str, Any]]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def drain(self) -> tuple[list[Notice], list[Notice]]:
        """The notices and messages since the last drain (the host reports them once)."""
        with self._lock:
            notices, messages = list(self.notices), list(self.messages)
            self.notices.clear()
            self.messages.clear()
        return notices, messages

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            return {name: {"entries": list(items)} for name, items in sorted(self.entries.items())
                    if items}

    def restore(self, data: Any) -> None:
        if not isinstance(data, dict):
            return
        with self._lock:
            self.entries.clear()
            for name, value in data.items():
                items = value.get("entries") if isinstance(value, dict) else None
                if isinstance(name, str) and isinstance(items, list):
                    self.entries[name] = [dict(i) for i in items if isinstance(i, dict)]


class ScriptContext:
    """`LocalContext` for one extension (see eve_build.sdk.local)."""

    def __init__(self, name: str, cwd: Path, extension_dir: Path, session: LocalSession) -> None:
        self._name, self._cwd, self._dir, self._session = name, cwd, extension_dir, session

    @property
    def name(self) -> str:
        return self._name

    @property
    def cwd(self) -> Path:
        return self._cwd

    @property
    def extension_dir(self) -> Path:
        return self._dir

    @property
    def entries(self) -> list[dict[str, Any]]:
        return [dict(e) for e in self._session.entries.get(self._name, [])]

    def notify(self, text: str, level: str = "info") -> None:
        shown = level if level in LEVELS else "info"
        with self._session._lock:
            self._session.notices.append(Notice(self._name, str(text), shown))
        logger.log(logging.WARNING if shown != "info" else logging.INFO, "%s: %s",
                   self._name, text)

    def append_entry(self, entry: dict[str, Any]) -> None:
        """Keep `entry` (a JSON object) in the session; raises when it is not JSON-safe."""
        if not isinstance(entry, dict):
            raise EveBuildError(f"`{self._name}`: append_entry takes a dict, not "
                                f"{type(entry).__name__}")
        try:
            copied = json.loads(json.dumps(entry, allow_nan=False))
        except (TypeError, ValueError) as exc:
            raise EveBuildError(f"`{self._name}`: the entry is not JSON-safe: {exc}",
                                "keep entries to dicts of JSON types") from None
        with self._session._lock:
            self._session.entries.setdefault(self._name, []).append(copied)

    def send_user_message(self, text: str) -> None:
        with self._session._lock:
            self._session.messages.append(Notice(self._name, str(text)))


class LocalToolContext:
    """What a local tool's `execute(input, ctx)` gets: the tool ctx and the extension's."""

    def __init__(self, tool: ToolContext, local: Any) -> None:
        self._tool = tool
        self._local = local

    def report_progress(self, text: str) -> None:
        self._tool.report_progress(text)

    def __getattr__(self, attribute: str) -> Any:
        """The extension's ctx first (`name`, `entries`...), then the tool's (`namespace`)."""
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        if hasattr(self._local, attribute):
            return getattr(self._local, attribute)
        return getattr(self._tool, attribute)
