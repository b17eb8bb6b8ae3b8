"""The host refuses sockets another user owns or others may open."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from eve_build.node.paths import ensure_run_dir
from eve_build.node.security import find_socket_problem


@pytest.fixture
def listening(home: Path) -> Iterator[Path]:
    path = ensure_run_dir(home) / "probe.sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    path.chmod(0o600)
    yield path
    server.close()


def test_the_run_folder_is_private(home: Path) -> None:
    (home / "run").mkdir(mode=0o755)
    (home / "run").chmod(0o755)
    assert ensure_run_dir(home).stat().st_mode & 0o777 == 0o700


def test_an_own_0600_socket_is_fine(listening: Path) -> None:
    assert find_socket_problem(listening) is None


def test_a_0666_socket_is_refused(listening: Path) -> None:
    listening.chmod(0o666)
    assert "mode 0666" in (find_socket_problem(listening) or "")


def test_a_socket_of_another_user_is_refused(listening: Path) -> None:
    uid = os.getuid()
    if uid == 0:  # root (CI) gives the socket away for real
        os.chown(listening, 65534, -1)
        assert "owned by uid 65534, not by you (uid 0)" in (find_socket_problem(listening) or "")
    else:  # the same files judged for another user: neither folder nor socket are theirs
        assert "its folder" in (find_socket_problem(listening, owner=uid + 1) or "")


def test_a_plain_file_is_not_a_socket(home: Path) -> None:
    path = ensure_run_dir(home) / "fake.sock"
    path.write_text("")
    path.chmod(0o600)
    assert "is not a socket" in (find_socket_problem(path) or "")


def test_a_wide_run_folder_is_refused(listening: Path) -> None:
    listening.parent.chmod(0o777)
    assert "must be yours with mode 0700" in (find_socket_problem(listening) or "")
