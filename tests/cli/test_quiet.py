"""`-q` on a command that does something prints nothing on success: its summary
("Built ...", "Created ...", "Trusted ...") is for people, as `eve build -q`'s is
(issue 28 item 7). Its errors print as without `-q`. Real `eve` processes."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from eve_build.session.stores import open_session_store
from tests.conftest import FIXTURES, copy_fixture_tree

Eve = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def eve(tmp_path: Path) -> Eve:
    env = {**os.environ, "EVE_HOME": str(tmp_path / "home"), "NO_COLOR": "1"}

    def run(*args: str, cwd: Path = tmp_path) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "eve_build", *args], cwd=cwd, env=env,
                              capture_output=True, text=True, timeout=300, check=False)

    return run


def _silent(done: subprocess.CompletedProcess[str], args: tuple[str, ...]) -> None:
    assert (done.returncode, done.stdout, done.stderr) == (0, "", ""), args


@pytest.mark.parametrize("args", [("extension", "build", "-q"), ("-q", "extension", "build"),
                                  ("extension", "build", "--quiet", "--no-cache"),
                                  ("-q", "extension", "build", "--no-cache"),
                                  ("extension", "build", "-q", "--path", ".")])
def test_extension_build_quiet_prints_nothing_on_success_and_still_errors(
        copy_fixture: Callable[[str], Path], eve: Eve, args: tuple[str, ...]) -> None:
    """`eve -q extension build [--no-cache]` is the fast path; the rest run through typer."""
    root = copy_fixture("extensions/gizmo")
    loud = eve("extension", "build", cwd=root)
    assert loud.returncode == 0 and loud.stdout.startswith("Built gizmo "), loud.stderr

    _silent(eve(*args, cwd=root), args)

    (root / "extension" / "tools" / "broken.py").write_text("tool = define_tool(\n")
    failed = eve(*args, cwd=root)
    assert failed.returncode == 1, args
    assert failed.stdout == ""
    assert "extension/tools/broken.py:1: error load/syntax-error" in failed.stderr
    assert "Traceback" not in failed.stderr


def test_the_other_doing_commands_are_silent_with_quiet(eve: Eve, tmp_path: Path) -> None:
    """Each prints its summary without `-q` (checked, so the quiet run can show a change)
    and nothing with it."""
    app = tmp_path / "app"
    app.mkdir()
    node = copy_fixture_tree(FIXTURES / "nodes" / "echo-node", tmp_path / "echo-node")
    store = open_session_store(app)
    first, second = store.create_session().id, store.create_session().id
    store.close()
    pairs = [  # (loud, quiet): the loud one leaves something for the quiet one to do
        (("extension", "new-local", "alpha", "--path", str(app)),
         ("extension", "new-local", "beta", "-q", "--path", str(app))),
        (("trust", "--yes", "--path", str(app)), ("trust", "-q", "--revoke", "--path", str(app))),
        (("trust", "--revoke", "--path", str(app)), ("-q", "trust", "--yes", "--path", str(app))),
        (("sessions", "delete", first, "--path", str(app)),
         ("sessions", "delete", second, "-q", "--path", str(app))),
        (("node", "add", str(node), "--yes", "--name", "one"),
         ("node", "add", str(node), "--yes", "--name", "two", "-q")),
        (("node", "remove", "one"), ("node", "remove", "two", "-q")),
        (("extension", "init", "acme-one", "--no-install", "--no-git"),
         ("extension", "init", "acme-two", "--no-install", "--no-git", "-q")),
        (("init", "agent-one", "--no-install", "--no-git"),
         ("-q", "init", "agent-two", "--no-install", "--no-git")),
    ]
    for loud_args, quiet_args in pairs:
        loud = eve(*loud_args)
        assert loud.returncode == 0 and loud.stdout.strip(), (loud_args, loud.stderr)
        _silent(eve(*quiet_args), quiet_args)
    assert (app / ".eve" / "extensions" / "beta.py").is_file()
    assert (tmp_path / "acme-two" / "pyproject.toml").is_file()
    assert (tmp_path / "agent-two" / "pyproject.toml").is_file()

    missing = eve("sessions", "delete", "nope", "-q", "--path", str(app))
    assert missing.returncode == 1 and missing.stdout == ""
    assert "session/id-unknown" in missing.stderr
