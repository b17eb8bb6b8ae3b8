"""The agent project's `.env` and `.env.local`: the one reader of them (python-dotenv).

    files = read_env_files(app_root)
    environ = layer_environ(files, os.environ)   # the process wins, then .env.local, .env

Both files sit in the app root (beside pyproject.toml and `agent/`). They supply the
values of `env(...)` and the provider's variables (`OPENAI_API_KEY`, `OPENAI_BASE_URL`,
...) of every command that loads the agent; the process environment wins over
`.env.local`, which wins over `.env`. Nothing here writes `os.environ`, except
`lending`, which lends the files' values to it only while a model's client is built (the
providers read their keys from `os.environ`) and takes them back.

A line python-dotenv cannot parse is `runtime/env-file-invalid` with its file and line;
the message never repeats the line (it may hold a secret). `${NAME}` in a value expands
from the files and the environment, as python-dotenv does.
"""

from __future__ import annotations

import contextlib
import io
import os
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from eve_build.diagnostics import Diagnostic, error

ENV_FILES = (".env", ".env.local")
"""Lowest precedence first: `.env.local` overrides `.env` (the process overrides both)."""
SETTINGS_PREFIX = "EVE_"
"""eve's own settings (`EVE_MODEL`, timeouts) are not secrets: never redacted."""
ENVIRONMENT = "environment"
"""The origin of a name the process environment sets."""


@dataclass(frozen=True)
class EnvFiles:
    """What the env files of one app root set: values, the file each came from, problems."""

    root: Path
    values: Mapping[str, str] = field(default_factory=dict)
    origins: Mapping[str, str] = field(default_factory=dict)  # name -> ".env" | ".env.local"
    problems: tuple[Diagnostic, ...] = ()

    def secrets(self) -> dict[str, str]:
        """The values to redact: every one but eve's own settings (`EVE_*`)."""
        return {name: value for name, value in self.values.items()
                if not name.startswith(SETTINGS_PREFIX)}

    def origin(self, name: str, environ: Mapping[str, str]) -> str | None:
        """Where `name` comes from: `environment`, `.env.local`, `.env`, or None (unset)."""
        if name in environ:
            return ENVIRONMENT
        return self.origins.get(name)


def read_env_files(root: Path, environ: Mapping[str, str] | None = None) -> EnvFiles:
    """The env files of `root` (absent files set nothing); `environ` (default: the
    process's) only serves `${NAME}` expansion."""
    process = os.environ if environ is None else environ
    values: dict[str, str] = {}
    origins: dict[str, str] = {}
    problems: list[Diagnostic] = []
    for name in ENV_FILES:
        path = root / name
        if not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            reason = "it is not UTF-8 text" if isinstance(exc, UnicodeDecodeError) else (
                exc.strerror or type(exc).__name__)
            problems.append(error("runtime/env-file-invalid", name,
                                  f"`{name}` cannot be read: {reason}",
                                  "save it as UTF-8 text with one `NAME=value` a line"))
            continue
        from dotenv.parser import parse_stream  # imported only when a file is there
        from dotenv.variables import parse_variables

        for binding in parse_stream(io.StringIO(text)):
            if binding.error:
                problems.append(error(
                    "runtime/env-file-invalid", name,
                    f"line {_first_line(binding.original.string, binding.original.line)} of "
                    f"`{name}` is not `NAME=value`",
                    "write one `NAME=value` a line (quote a value with spaces or `#`); "
                    "`#` starts a comment", line=_first_line(binding.original.string,
                                                             binding.original.line)))
            elif binding.key is not None and binding.value is not None:
                lookup = {**values, **process}
                values[binding.key] = "".join(atom.resolve(dict(lookup))
                                              for atom in parse_variables(binding.value))
                origins[binding.key] = name
    return EnvFiles(root, values, origins, tuple(problems))


def layer_environ(files: EnvFiles, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment a loaded agent reads: `environ` (default: the process's) over the
    files' values."""
    return {**files.values, **(os.environ if environ is None else environ)}


_LENDING = threading.Lock()


@contextlib.contextmanager
def lending(values: Mapping[str, str]) -> Iterator[None]:
    """`values` the process environment lacks, in `os.environ` for the block only (a
    provider's client reads its key there when it is built), then taken back."""
    with _LENDING:
        lent = {name: value for name, value in values.items() if name not in os.environ}
        os.environ.update(lent)
        try:
            yield
        finally:
            for name, value in lent.items():
                if os.environ.get(name) == value:
                    del os.environ[name]


def _first_line(original: str, line: int) -> int:
    """The line where a statement's text starts (python-dotenv counts from the blank
    lines and comments before it)."""
    skipped = original[:len(original) - len(original.lstrip())]
    return line + skipped.count("\n")
