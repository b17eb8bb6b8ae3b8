"""The arguments of `eve call`: a JSON object given inline, as `@FILE`, or as `-`/`@-` (stdin).

Input is bounded: at most MAX_ARGUMENT_BYTES are read from a file or stdin, `@FILE`
must be a regular file (`@/dev/zero` or a FIFO is an error, not a hang or a process
the kernel kills; pipe into `@-` instead), stdin must be open, the text must be UTF-8,
and JSON nested deeper than the parser can follow is an error, not a crash.
"""

from __future__ import annotations

import io
import json
import os
import stat
import sys
from pathlib import Path
from typing import IO, Any

from eve_build.errors import UsageError
from eve_build.userfile import UserFileError, read_user_bytes

MAX_ARGUMENT_BYTES = 8 * 1024 * 1024
"""The most bytes `@FILE` or `@-` may hold (8 MiB, docs/reliability.md)."""

_HINT_FILE = "pass `@FILE` with the path of a JSON file, or `@-` to read stdin"


def read_arguments(text: str, stdin: IO[bytes] | None = None) -> dict[str, Any]:
    """The arguments as a dict (raises UsageError, exit code 2)."""
    source = "the arguments"
    if text == "-":  # `eve call TOOL -`: the same as `@-`
        text = "@-"
    if text.startswith("@"):
        name = text[1:]
        source = "stdin" if name == "-" else f"`{name}`"
        data = read_bounded(name, stdin)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise UsageError(f"{source} is not UTF-8 text (byte {exc.start})",
                             "save the arguments as UTF-8 JSON") from None
    if len(text.encode("utf-8", "surrogatepass")) > MAX_ARGUMENT_BYTES:
        raise UsageError(f"{source} are larger than {MAX_ARGUMENT_BYTES} bytes",
                         "pass smaller arguments")
    return parse_arguments(text, source)


def read_bounded(name: str, stdin: IO[bytes] | None = None) -> bytes:
    """At most MAX_ARGUMENT_BYTES from the file `name` (`-`: stdin), else UsageError."""
    shown = "stdin" if name == "-" else f"`{name}`"
    stream = stdin or (sys.stdin.buffer if sys.stdin is not None else None)
    if name == "-" and stream is None:
        raise UsageError("cannot read stdin: it is closed",
                         "pipe the JSON into the command, or pass `@FILE`")
    try:
        if name == "-":
            assert stream is not None
            data = stream.read(MAX_ARGUMENT_BYTES + 1)
            if len(data) > MAX_ARGUMENT_BYTES:
                _drain_pipe(stream)
        else:
            path = Path(name)
            if path.is_dir():
                raise UsageError(f"cannot read {shown}: it is a folder", _HINT_FILE)
            data = read_user_bytes(path, what="argument file", limit=MAX_ARGUMENT_BYTES).data
    except UsageError:
        raise
    except UserFileError as exc:
        if exc.too_large:
            raise _too_large(shown) from None
        raise UsageError(f"cannot read {shown}: it {exc.why}",
                         "pass a regular file, or pipe the JSON in with `@-`") from None
    except OSError as exc:
        raise UsageError(f"cannot read {shown}: {exc.strerror or type(exc).__name__}",
                         _HINT_FILE) from None
    except ValueError as exc:  # e.g. an embedded NUL in the path
        raise UsageError(f"cannot read {shown}: {exc}", _HINT_FILE) from None
    if len(data) > MAX_ARGUMENT_BYTES:
        raise _too_large(shown)
    return data


DRAIN_BYTES = 8 * MAX_ARGUMENT_BYTES
"""How much more of an over-long piped stdin is read and dropped before the error, so a
writer a little over the limit sees its pipe read, not a BrokenPipeError."""


def _drain_pipe(stream: IO[bytes]) -> None:
    try:
        if not stat.S_ISFIFO(os.fstat(stream.fileno()).st_mode):
            return  # a device (`< /dev/zero`) or a file: nothing is waiting on it
        left = DRAIN_BYTES
        while left > 0 and (chunk := stream.read(min(left, 1 << 20))):
            left -= len(chunk)
    except (OSError, ValueError, io.UnsupportedOperation):
        return


def _too_large(shown: str) -> UsageError:
    return UsageError(f"{shown} holds more than {MAX_ARGUMENT_BYTES} bytes",
                      "pass smaller arguments (the limit is in docs/reliability.md)")


def parse_arguments(text: str, source: str = "the arguments") -> dict[str, Any]:
    """Parse a JSON object; invalid, too deep or non-object JSON is a UsageError."""
    try:
        value = json.loads(text, parse_constant=_refuse_constant)
    except _NotJSON as exc:
        raise UsageError(f"{source} hold `{exc}`, which is not JSON",
                         "use null or a string instead of NaN and Infinity") from None
    except json.JSONDecodeError as exc:
        raise UsageError(f"{source} are not valid JSON: {exc.msg} (line {exc.lineno}, "
                         f"column {exc.colno})",
                         """quote the JSON for the shell: eve call TOOL '{"query": "ada"}'"""
                         ) from None
    except RecursionError:
        raise UsageError(f"{source} are nested too deeply to read",
                         "pass arguments nested less deeply") from None
    if not isinstance(value, dict):
        raise UsageError(f"{source} must be a JSON object, not {type(value).__name__}",
                         """pass an object such as '{"query": "ada"}'""")
    return value


class _NotJSON(ValueError):
    pass


def _refuse_constant(name: str) -> Any:
    raise _NotJSON(name)
