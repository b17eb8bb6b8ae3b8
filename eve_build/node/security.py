"""Who may talk to a node: only the user who owns its socket (DESIGN.md section 8).

The node creates its socket 0600 in a 0700 folder. The host checks both before it
connects, and refuses a socket that another user owns or that others may open:
such a socket could be someone else's process posing as the user's node.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path


def find_socket_problem(socket: Path, *, owner: int | None = None) -> str | None:
    """Why the host must not connect to `socket` (None when it is safe).

    `owner` is the uid the socket and its folder must belong to (the current user's).
    """
    uid = os.getuid() if owner is None else owner
    try:
        folder = socket.parent.lstat()
        info = socket.lstat()
    except FileNotFoundError:
        return f"`{socket}` does not exist"
    if folder.st_uid != uid or folder.st_mode & 0o077:
        return (f"its folder `{socket.parent}` is owned by uid {folder.st_uid} with mode "
                f"{stat.S_IMODE(folder.st_mode):04o}; it must be yours with mode 0700")
    if not stat.S_ISSOCK(info.st_mode):
        return f"`{socket}` is not a socket"
    if info.st_uid != uid:
        return f"`{socket}` is owned by uid {info.st_uid}, not by you (uid {uid})"
    if info.st_mode & 0o077:
        return (f"`{socket}` has mode {stat.S_IMODE(info.st_mode):04o}: other users could "
                "connect to it; a node's socket is 0600")
    return None
