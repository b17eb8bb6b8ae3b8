"""A real PostgreSQL server for the tests, from the machine's own binaries.

`initdb` into a fresh folder, `pg_ctl start` on a free 127.0.0.1 port with its Unix
socket in that folder, `pg_ctl stop` at the end. PostgreSQL refuses to run as root, so
as root (CI) the server runs as the `postgres` user when there is one, else `nobody`,
through subprocess's own `user=` (no su/runuser needed), in a folder under /tmp that
user owns. Without any binary the tests that need it are skipped, saying so, except
under CI (`CI=true`, set by `.ci/run`), where they fail.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

USERS = ("postgres", "nobody")


def find_bin_dir() -> Path | None:
    """The folder holding initdb, pg_ctl and postgres (PATH first), or None."""
    found = shutil.which("initdb")
    candidates = [Path(found).parent] if found else []
    candidates += sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)
    candidates.append(Path("/usr/local/pgsql/bin"))
    for folder in candidates:
        if all((folder / tool).is_file() for tool in ("initdb", "pg_ctl", "postgres")):
            return folder
    return None


MISSING = ("no PostgreSQL server binaries (initdb, pg_ctl, postgres) on PATH or in "
           "/usr/lib/postgresql/*/bin: install the `postgresql` package")


def required_bin_dir(environ: Mapping[str, str]) -> Path:
    """`find_bin_dir()`, or skip the test saying why; under CI (`CI` set and not empty,
    `0`, `false` or `no`; `.ci/run` sets it) fail instead, so a green CI means the store
    was tested on PostgreSQL."""
    import pytest  # here: bench/store_bench.py imports this module without pytest

    found = find_bin_dir()
    if found is not None:
        return found
    if environ.get("CI", "").strip().lower() not in ("", "0", "false", "no"):
        pytest.fail(f"CI is set and there are {MISSING}", pytrace=False)
    pytest.skip(MISSING)


@dataclass
class PostgresServer:
    bin_dir: Path
    folder: Path
    port: int
    user: str | None  # who the server runs as (None: the current user)

    @property
    def admin_url(self) -> str:
        return f"postgresql://eve@127.0.0.1:{self.port}/postgres"

    def url(self, database: str) -> str:
        return f"postgresql://eve@127.0.0.1:{self.port}/{database}"

    def run(self, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        options: dict[str, Any] = {}
        if self.user is not None:
            options = {"user": self.user, "group": pwd.getpwnam(self.user).pw_gid,
                       "extra_groups": []}
        return subprocess.run([str(self.bin_dir / args[0]), *args[1:]], capture_output=True,
                              text=True, timeout=timeout, check=False, cwd=self.folder,
                              env={**os.environ, "LC_ALL": "C"}, **options)

    def start(self, *, fsync: bool = False) -> None:
        """`pg_ctl start` on this server's port (raises RuntimeError if it fails)."""
        options = (f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 "
                   f"-c fsync={'on' if fsync else 'off'} -c max_connections=50")
        done = self.run("pg_ctl", "-D", "data", "-l", "server.log", "-w", "-t", "60",
                        "-o", options, "start", timeout=90)
        if done.returncode:
            log = (self.folder / "server.log").read_text(errors="replace")[-2000:] \
                if (self.folder / "server.log").exists() else ""
            raise RuntimeError(f"pg_ctl start failed: {done.stderr.strip()}\n{log}")

    def stop(self, mode: str = "fast") -> None:
        """`pg_ctl stop -m MODE`, waiting until it is down ("fast" ends every connection
        with "terminating connection due to administrator command")."""
        done = self.run("pg_ctl", "-D", "data", "-m", mode, "-w", "-t", "60", "stop",
                        timeout=90)
        if done.returncode:
            raise RuntimeError(f"pg_ctl stop failed: {done.stderr.strip()}")

    def create_database(self, name: str) -> str:
        import psycopg

        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def drop_database(self, name: str) -> None:
        import psycopg

        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _server_user() -> str | None:
    if os.geteuid() != 0:
        return None
    for name in USERS:
        with contextlib.suppress(KeyError):
            pwd.getpwnam(name)
            return name
    raise RuntimeError("running as root and there is no `postgres` or `nobody` user to run "
                       "PostgreSQL as")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def running_postgres(bin_dir: Path, *, fsync: bool = False) -> Iterator[PostgresServer]:
    """A started server, stopped and removed afterwards (raises RuntimeError if it fails).

    The tests run it with `fsync=off` (they kill eve-build's processes, never the
    server's); the bench turns fsync on, as a real server has it."""
    user = _server_user()
    folder = Path(tempfile.mkdtemp(prefix="eve-pg-"))
    if user is not None:
        entry = pwd.getpwnam(user)
        os.chown(folder, entry.pw_uid, entry.pw_gid)
    server = PostgresServer(bin_dir, folder, _free_port(), user)
    try:
        done = server.run("initdb", "-D", "data", "-U", "eve", "--auth=trust", "-E", "UTF8",
                          "--locale=C", "--no-sync")
        if done.returncode:
            raise RuntimeError(f"initdb failed: {done.stderr.strip() or done.stdout.strip()}")
        server.start(fsync=fsync)
        try:
            yield server
        finally:
            server.run("pg_ctl", "-D", "data", "-m", "immediate", "-w", "stop")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
