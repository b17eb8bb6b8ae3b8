"""Issue 23.13: deep trees and files, over-long and closed stdin, a loop added later."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from eve_build.consumer.build import build_agent
from eve_build.errors import DiagnosticsError
from eve_build.local.trust import read_trust
from eve_build.runtime.arguments import MAX_ARGUMENT_BYTES
from tests.conftest import FIXTURES, copy_fixture_tree
from tests.golden_files import read_files
from tests.reliability.agents import make_misbehaving_agent, run_eve

Copy = Callable[[str], Path]
DEPTH = 1100  # past Python's recursion limit (1000)


@pytest.fixture
def make_deep() -> Iterator[Callable[[Path], Path]]:
    """`make(folder)`: `folder/d/d/.../d`, built and removed without recursion (os.makedirs
    and shutil.rmtree, pytest's tmp cleanup too, recurse on Python 3.11)."""
    made: list[Path] = []

    def make(folder: Path) -> Path:
        path = folder
        path.mkdir(parents=True, exist_ok=True)
        for _ in range(DEPTH):
            path = path / "d"
            path.mkdir()
        (path / "x.py").write_text("X = 1\n")
        made.append(folder / "d")
        return path

    yield make
    for top in made:
        deepest = top
        while (deepest / "d").is_dir():
            deepest = deepest / "d"
        for leftover in deepest.iterdir():
            leftover.unlink()
        while deepest != top.parent:
            for leftover in deepest.iterdir():  # __pycache__ and the like
                if leftover.is_file():
                    leftover.unlink()
            deepest.rmdir()
            deepest = deepest.parent


def test_a_source_tree_1100_folders_deep_is_tree_too_deep(
        copy_fixture: Copy, tmp_path: Path, make_deep: Callable[[Path], Path]) -> None:
    root = copy_fixture("extensions/gizmo")
    env = {"EVE_HOME": str(tmp_path / "home")}
    assert run_eve("extension", "build", cwd=root, env=env).returncode == 0  # a stamp now
    before = read_files(root / "build" / "eve")
    make_deep(root / "extension" / "lib")
    done = run_eve("extension", "build", cwd=root, env=env)
    stderr = done.stderr.decode()
    assert done.returncode == 1
    assert "error discover/tree-too-deep:" in stderr
    assert "is nested more than 100 folders deep" in stderr
    assert "Traceback" not in stderr and "internal/unexpected" not in stderr
    assert read_files(root / "build" / "eve") == before


def test_an_agent_tree_1100_folders_deep_is_tree_too_deep(
        tmp_path: Path, make_deep: Callable[[Path], Path]) -> None:
    root = tmp_path / "app"
    copy_fixture_tree(FIXTURES / "apps" / "directory-mount", root)
    for extension in ("acme-crm", "gizmo"):
        copy_fixture_tree(FIXTURES / "extensions" / extension, root / "packages" / extension)
    make_deep(root / "agent" / "tools")
    with pytest.raises(DiagnosticsError) as caught:
        build_agent(root)
    assert [d.code for d in caught.value.diagnostics if d.is_error] == [
        "discover/tree-too-deep"]
    done = run_eve("build", "--plan", "--json", cwd=root)  # the plan walks mount files too
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["status"] == "planned"


def test_a_trust_file_nested_100000_deep_trusts_nothing(tmp_path: Path) -> None:
    (tmp_path / "trust.json").write_text("[" * 100_000 + "]" * 100_000)
    projects, problems = read_trust(tmp_path)
    assert projects == {}
    assert [(d.code, d.file) for d in problems] == [
        ("local/trust-file-invalid", str(tmp_path / "trust.json"))]
    assert "cannot be read as JSON" in problems[0].message


@pytest.fixture(scope="module")
def agent_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_misbehaving_agent(tmp_path_factory.mktemp("deep") / "app")


def test_nine_mib_on_stdin_is_a_usage_error_and_the_writer_sees_no_broken_pipe(
        agent_root: Path) -> None:
    env = {**os.environ, "EVE_HOME": str(agent_root / ".eve-home")}
    process = subprocess.Popen([sys.executable, "-m", "eve_build", "call", "fine", "@-"],
                               cwd=agent_root, env=env, stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdin is not None and process.stderr is not None
    try:
        process.stdin.write(b" " * (9 * 1024 * 1024))  # raised BrokenPipeError before
        process.stdin.close()
        assert process.wait(timeout=60) == 2
        stderr = process.stderr.read().decode()
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()
    assert stderr.startswith(f"error: stdin holds more than {MAX_ARGUMENT_BYTES} bytes")
    assert "Traceback" not in stderr


def test_a_closed_stdin_for_at_dash_is_a_usage_error(agent_root: Path) -> None:
    env = {**os.environ, "EVE_HOME": str(agent_root / ".eve-home")}
    done = subprocess.run(["sh", "-c", 'exec "$@" <&-', "sh", sys.executable, "-m",
                           "eve_build", "call", "fine", "@-"], cwd=agent_root, env=env,
                          capture_output=True, timeout=60, check=False)
    assert done.returncode == 2
    assert done.stderr.decode() == ("error: cannot read stdin: it is closed\n\nhint: pipe "
                                    "the JSON into the command, or pass `@FILE`\n")


def test_a_folder_link_loop_added_after_a_build_is_warned_about(copy_fixture: Copy,
                                                                tmp_path: Path) -> None:
    root = copy_fixture("extensions/gizmo")
    env = {"EVE_HOME": str(tmp_path / "home")}
    assert run_eve("extension", "build", cwd=root, env=env).returncode == 0
    (root / "extension" / "lib").mkdir()
    (root / "extension" / "lib" / "loop").symlink_to("..")
    done = run_eve("extension", "build", cwd=root, env=env)  # the stamp used to skip it
    assert done.returncode == 0
    assert ("extension/lib/loop: warning discover/symlink-broken: `extension/lib/loop` is a "
            "symlink that loops (to `..`); it is skipped") in done.stderr.decode()
    (root / "extension" / "lib" / "self").symlink_to("self")
    done = run_eve("extension", "build", cwd=root, env=env)
    assert [line.split(": warning")[0] for line in done.stderr.decode().splitlines()
            if ": warning " in line] == ["extension/lib/loop", "extension/lib/self"]
