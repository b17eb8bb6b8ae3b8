"""The `ctx` a node gives its extension's `setup`, commands and handlers.

It satisfies `eve_build.sdk.LocalContext`. What the extension says to the user
(`notify`, `send_user_message`, `append_entry`) travels to the host as a
notification about the request being handled; outside any request it is logged.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from eve_build.node import protocol

logger = logging.getLogger("eve_build.node")

Sender = Callable[[str, dict[str, Any]], None]
"""Sends one notification about the current request (safe from any thread)."""

CURRENT_SENDER: ContextVar[Sender | None] = ContextVar("eve_node_sender", default=None)


class NodeContext:
    """`name`, `cwd` and `extension_dir` (both the node's project folder), `entries`."""

    def __init__(self, name: str, project: Path) -> None:
        self._name = name
        self._project = project
        self._entries: list[dict[str, Any]] = []

    @property
    def name(self) -> str:
        return self._name

    @property
    def cwd(self) -> Path:
        return self._project

    @property
    def extension_dir(self) -> Path:
        return self._project

    @property
    def entries(self) -> list[dict[str, Any]]:
        return list(self._entries)

    def notify(self, text: str, level: str = "info") -> None:
        self._send(protocol.NOTIFY, {"text": str(text), "level": level})

    def append_entry(self, entry: dict[str, Any]) -> None:
        copied = json.loads(json.dumps(entry))  # JSON-safe, or TypeError for the caller
        self._entries.append(copied)
        self._send(protocol.APPEND_ENTRY, {"entry": copied})

    def send_user_message(self, text: str) -> None:
        self._send(protocol.USER_MESSAGE, {"text": str(text)})

    @property
    def model(self) -> str | None:
        """The host's session model is not told to nodes: always None here."""
        return None

    def publish(self, name: str, data: Any = None) -> None:
        self._send(protocol.PUBLISH, {"name": str(name), "data": json.loads(json.dumps(data))})

    def send_custom_message(self, text: str, type: str = "custom",
                            data: Any = None) -> None:
        self._send(protocol.CUSTOM_MESSAGE, {"text": str(text), "type": str(type),
                                             "data": json.loads(json.dumps(data))})

    def _send(self, method: str, params: dict[str, Any]) -> None:
        sender = CURRENT_SENDER.get()
        if sender is None:
            logger.info("%s (outside a request): %s", method, params)
        else:
            sender(method, params)


def make_sender(loop: asyncio.AbstractEventLoop, writer: asyncio.StreamWriter,
                request_id: int | str | None) -> Sender:
    """A Sender writing to `writer` on `loop`, from the loop thread or a worker thread."""

    def write(method: str, params: dict[str, Any]) -> None:
        if not writer.is_closing():
            writer.write(protocol.encode_notification(method, {"request": request_id,
                                                               **params}))

    def send(method: str, params: dict[str, Any]) -> None:
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            write(method, params)
        else:
            loop.call_soon_threadsafe(write, method, params)

    return send
