"""The `ctx` a local extension gets, and the session it writes to.

One `LocalSession` lives as long as the agent (across reloads): the notices
(`ctx.notify`), the queued user messages (`ctx.send_user_message`) and each
extension's appended entries (`ctx.append_entry`, saved in the snapshot under
`local` -> name -> `entries`). In an agent session (eve_build.session) also the
published events (`ctx.publish`, emitted as `extension.event`), the custom messages
(`ctx.send_custom_message`, shown and stored, never sent to the model) and the
session's model name (`ctx.model`). The host reads and reports them; nothing here prints.
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
from eve_build.sdk import interaction
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


@dataclass(frozen=True)
class Published:
    """A `ctx.publish(name, data)`: emitted to every `extension.event` subscriber."""

    extension: str
    name: str
    data: Any = None


@dataclass
class LocalSession:
    notices: list[Notice] = field(default_factory=list)
    messages: list[Notice] = field(default_factory=list)
    # a dict, or the session store's (eve_build.session.states.StoreEntries) under eve serve
    entries: MutableMapping[str, list[dict[str, Any]]] = field(default_factory=dict)
    published: list[Published] = field(default_factory=list)
    custom: list[dict[str, Any]] = field(default_factory=list)
    model: str | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def drain(self) -> tuple[list[Notice], list[Notice]]:
        """The notices and messages since the last drain (the host reports them once)."""
        with self._lock:
            notices, messages = list(self.notices), list(self.messages)
            self.notices.clear()
            self.messages.clear()
        return notices, messages

    def take_messages(self) -> list[Notice]:
        """The queued user messages (a session turns each into a turn), leaving notices."""
        with self._lock:
            messages = list(self.messages)
            self.messages.clear()
        return messages

    def take_published(self) -> tuple[list[Published], list[dict[str, Any]]]:
        """The published events and custom messages since the last take."""
        with self._lock:
            published, custom = list(self.published), list(self.custom)
            self.published.clear()
            self.custom.clear()
        return published, custom

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

    async def ask(self, message: str, schema: Any) -> Any:
        """Ask the person (see eve_build.sdk.interaction); Declined/Cancelled raised."""
        return await interaction.ask_person(message, schema, source=self._name)

    async def sample(self, prompt: Any, *, max_tokens: int | None = None,
                     system: str | None = None) -> str:
        return await interaction.sample_model(prompt, max_tokens=max_tokens, system=system,
                                              source=self._name)

    async def run_subagent(self, name: str, text: str) -> str:
        return await interaction.run_subagent(name, text, source=self._name)

    def log(self, text: str, level: str = "info") -> None:
        interaction.write_log(text, level, source=self._name)

    def send_user_message(self, text: str) -> None:
        with self._session._lock:
            self._session.messages.append(Notice(self._name, str(text)))

    @property
    def model(self) -> str | None:
        """The model name of the session running now (`openai:gpt-4.1`), else None; in
        `setup`, the model the session about to start will use (`eve run`, `eve chat`)."""
        return self._session.model or interaction.current_interaction().model

    def publish(self, name: str, data: Any = None) -> None:
        """Emit `extension.event` (`data`: extension, name, data) to every subscriber."""
        copied = _json_copy(self._name, data)
        with self._session._lock:
            self._session.published.append(Published(self._name, str(name), copied))

    def send_custom_message(self, text: str, type: str = "custom",
                            data: Any = None) -> None:
        """A message shown to the user and stored with the session, never sent to the model."""
        message = {"extension": self._name, "type": str(type), "text": str(text),
                   "data": _json_copy(self._name, data)}
        with self._session._lock:
            self._session.custom.append(message)


def _json_copy(name: str, value: Any) -> Any:
    try:
        return json.loads(json.dumps(value, allow_nan=False))
    except (TypeError, ValueError) as exc:
        raise EveBuildError(f"`{name}`: the data is not JSON-safe: {exc}",
                            "keep published data to JSON types") from None


class LocalToolContext:
    """What a local tool's `execute(input, ctx)` gets: the tool ctx and the extension's."""

    def __init__(self, tool: ToolContext, local: Any) -> None:
        self._tool = tool
        self._local = local

    def report_progress(self, text: str, progress: float | None = None,
                        total: float | None = None) -> None:
        self._tool.report_progress(text, progress, total)

    def __getattr__(self, attribute: str) -> Any:
        """The extension's ctx first (`name`, `entries`...), then the tool's (`namespace`)."""
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        if hasattr(self._local, attribute):
            return getattr(self._local, attribute)
        return getattr(self._tool, attribute)
