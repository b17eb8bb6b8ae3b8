"""The local-extension contract (DESIGN section 7): `setup(ctx) -> Spec`.

A local extension (a script in `.eve/extensions/`, or a project node running in its
own process, section 8) defines

    from eve_build.sdk import Spec, define_command, define_tool

    def setup(ctx: LocalContext) -> Spec:
        return Spec(tools={"note": define_tool(...)}, guidelines=["Keep notes short."],
                    commands={"notes": define_command(description="...", run=show)})

Everything here is plain data: the host (`eve_build.local`) and the node
(`eve_build.node`) check and run it. Nothing here imports pydantic or touches the disk.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from eve_build.sdk.definitions import Tool

SPEC_FIELDS = ("tools", "guidelines", "commands", "hooks", "events")
"""The fields a Spec may set; the host names them in diagnostics."""


Completer = Callable[[str], Any] | Sequence[str]
"""How one argument completes: the candidate values, or `fn(partial) -> values`."""


@dataclass(frozen=True, kw_only=True)
class Command:
    """A slash command: `run(args, ctx)` returns the reply or raises.

    `args` is the text after the name, or, with `input=Model`, a validated `Model`
    (named arguments: `key=value` words on the command line, the fields of the MCP
    prompt). The reply is a `str`, a content part (`text()`, `image()`, `resource()`),
    a list of parts, or a `ToolResult`. `complete` maps an argument to its completions.
    """

    description: str | None = None
    run: Callable[..., Any] | None = None
    arg_hint: str | None = None
    input: Any = None  # a pydantic model class, or None for one `args: str`
    complete: Mapping[str, Completer] = field(default_factory=dict)


def define_command(
    *, description: str | None = None, run: Callable[..., Any] | None = None,
    arg_hint: str | None = None, input: Any = None,
    complete: Mapping[str, Completer] | None = None,
) -> Command:
    """A command the user runs as `/name args` (or `eve command NAME ARGS`).

    With `input=Model`, `run(args: Model, ctx)` takes named arguments (`/name key=value
    ...`); `complete={"arg": ["a", "b"] or fn(partial) -> list}` offers completions of
    an argument (MCP `completion/complete`)."""
    return Command(description=description, run=run, arg_hint=arg_hint, input=input,
                   complete=dict(complete or {}))


@dataclass(frozen=True, kw_only=True)
class Spec:
    """What a local extension contributes; every field is optional.

    `hooks` maps an intercepting event (`action.call`, `action.result`,
    `message.received`) to `handler(event, ctx)` with the return shapes of section 6;
    `events` maps an event name or an event class (`lifecycle`, `tools`, `stream`,
    `extension`) to an observer whose return value is ignored.
    """

    tools: Mapping[str, Tool] = field(default_factory=dict)
    guidelines: tuple[str, ...] | list[str] = ()
    commands: Mapping[str, Command] = field(default_factory=dict)
    hooks: Mapping[str, Callable[..., Any]] = field(default_factory=dict)
    events: Mapping[str, Callable[..., Any]] = field(default_factory=dict)


class LocalContext(Protocol):
    """The `ctx` given to `setup`, to commands and to a local extension's handlers."""

    @property
    def name(self) -> str: ...  # the extension's name (file or folder name)

    @property
    def cwd(self) -> Path: ...  # the project root

    @property
    def extension_dir(self) -> Path: ...  # the folder holding the extension's file

    @property
    def entries(self) -> list[dict[str, Any]]: ...  # its own appended entries

    def notify(self, text: str, level: str = "info") -> None: ...

    def append_entry(self, entry: dict[str, Any]) -> None: ...  # JSON-safe, persisted

    def send_user_message(self, text: str) -> None: ...  # queued; the host reports it

    @property
    def model(self) -> str | None: ...  # the session's model name, None outside a session

    def publish(self, name: str, data: Any = None) -> None: ...  # emits `extension.event`

    def send_custom_message(self, text: str, type: str = "custom",
                            data: Any = None) -> None: ...  # shown and stored, not sent

    async def ask(self, message: str, schema: Any) -> Any: ...  # the person's validated answer

    async def sample(self, prompt: Any, *, max_tokens: int | None = None,
                     system: str | None = None) -> str: ...  # a model's reply

    async def run_subagent(self, name: str, text: str) -> str: ...  # a subagent's reply

    def log(self, text: str, level: str = "info") -> None: ...  # RFC 5424 level
