"""Read a file the user gave us: a regular file, bounded, or a clear reason why not.

    data = read_user_bytes(path, what="trust file").data
    text = read_user_text(path, what="pyproject")

Everything eve-build reads from a user's tree (sources, pyproject.toml, trust.json,
snapshots, `@FILE` arguments) goes through here. A FIFO would block the read forever,
a character device (`/dev/zero`, `/dev/urandom`, behind a symlink or not) never ends
and a huge file exhausts memory. The file is opened without blocking (a FIFO with no
writer does not hang the open), checked with `fstat` on the open descriptor (no race
with a rename), and read to at most `limit` bytes. Anything else raises
`UserFileError`, an `OSError` whose `strerror` says what the file is and the bound,
so the callers that already turn `OSError` into a diagnostic report it unchanged.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

MAX_USER_FILE_BYTES = 64 * 1024 * 1024
"""The default bound (64 MiB): far past any source file, pyproject or trust file."""

FILE_HINT = ("eve-build reads only regular files: replace it with a regular file (a FIFO, "
             "a device or a socket is never read), or remove it")
_KINDS = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISDIR, "a folder"))


class UserFileError(OSError):
    """The file is not a regular file, or is larger than the bound."""

    def __init__(self, path: Path, why: str, hint: str = FILE_HINT, *,
                 too_large: bool = False) -> None:
        super().__init__(errno.EINVAL, why, str(path))
        self.path, self.why, self.hint, self.too_large = path, why, hint, too_large

    def __str__(self) -> str:
        return f"`{self.path}` {self.why}"


@dataclass(frozen=True)
class UserFile:
    path: Path
    data: bytes


def describe_special(mode: int) -> str | None:
    """"a FIFO (named pipe)", "a character device", ...; None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    return next((what for test, what in _KINDS if test(mode)), "not a regular file")


def read_user_bytes(path: Path, *, what: str = "file",
                    limit: int = MAX_USER_FILE_BYTES) -> UserFile:
    """The bytes of the regular file at `path` (links followed), at most `limit` of them."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    descriptor = os.open(path, flags)
    try:
        kind = describe_special(os.fstat(descriptor).st_mode)
        if kind is not None:
            raise UserFileError(path, f"is {kind}, not a regular file; the {what} is not read")
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            chunk = os.read(descriptor, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(descriptor)
    if size > limit:
        raise UserFileError(path, f"is larger than {_size(limit)}; the {what} is not read",
                            "a file this large is not a plausible input: check the path",
                            too_large=True)
    return UserFile(path, b"".join(chunks))


def read_user_text(path: Path, *, what: str = "file", limit: int = MAX_USER_FILE_BYTES) -> str:
    """`read_user_bytes` decoded as UTF-8 with universal newlines, as `Path.read_text` reads
    (UnicodeDecodeError as `bytes.decode` raises it)."""
    text = read_user_bytes(path, what=what, limit=limit).data.decode("utf-8")
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def _size(limit: int) -> str:
    return f"{limit // (1024 * 1024)} MiB" if limit >= 1024 * 1024 else f"{limit} bytes"
