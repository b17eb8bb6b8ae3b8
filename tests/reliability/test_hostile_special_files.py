"""Generated: special files (FIFOs, device links, link loops, deep trees) in a source tree
and as every file eve-build reads, until none hangs, exhausts memory or escapes.

Every example runs under an alarm: a read that blocks fails the example instead of
hanging the suite. Example counts come from the profile in conftest.py.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

import pytest
from hypothesis import given
from hypothesis import strategies as st

from eve_build.errors import DiagnosticsError, EveBuildError
from eve_build.extension.build import build_extension
from eve_build.local.trust import read_trust
from eve_build.project.pyproject import read_pyproject
from eve_build.runtime.arguments import read_arguments
from eve_build.runtime.snapshot import read_snapshot
from eve_build.source.walk import MAX_DEPTH
from tests.conftest import FIXTURES, copy_fixture_tree

ALARM_SECONDS = 60
SPECIAL = ("fifo", "/dev/zero", "/dev/urandom", "link-to-fifo")
LOOPS = ("loop-self", "loop-parent")
KINDS = st.sampled_from([*SPECIAL, *LOOPS, "file"])
FOLDERS = st.sampled_from(["tools", "lib", "lib/a", "hooks"])
ENTRIES = st.lists(st.tuples(FOLDERS, KINDS), min_size=1, max_size=5)
DEPTHS = st.none() | st.integers(MAX_DEPTH - 5, MAX_DEPTH + 30)


@contextlib.contextmanager
def alarm(seconds: int = ALARM_SECONDS) -> Iterator[None]:
    def expire(_number: int, _frame: FrameType | None) -> None:
        raise TimeoutError(f"blocked for {seconds} s: a read that never ends")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    folder = tmp_path_factory.mktemp("hostile-special")
    with pytest.MonkeyPatch.context() as patch:  # one cache for every example: fast
        patch.setenv("EVE_CACHE_DIR", str(folder / "cache"))
        yield folder


def place(source: Path, folder: str, index: int, kind: str, package: Path) -> str:
    """Put one entry of `kind` into `source/folder`; its path under the source root."""
    where = source / folder
    where.mkdir(parents=True, exist_ok=True)
    name = f"x{index}" if kind in LOOPS else f"x{index}.py"
    path = where / name
    if kind == "fifo":
        os.mkfifo(path)
    elif kind in ("/dev/zero", "/dev/urandom"):
        path.symlink_to(kind)
    elif kind == "link-to-fifo":
        fifo = package / f"pipe{index}"
        os.mkfifo(fifo)
        path.symlink_to(os.path.relpath(fifo, where))
    elif kind == "loop-self":
        path.symlink_to(name)
    elif kind == "loop-parent":
        path.symlink_to("..")
    else:
        (source / "lib").mkdir(exist_ok=True)
        path = source / "lib" / f"x{index}.py"
        path.write_text(f"X = {index}\n")
    return path.relative_to(source).as_posix()


@given(entries=ENTRIES, depth=DEPTHS)
def test_special_files_in_a_source_tree_are_named_never_read(
        scratch: Path, entries: list[tuple[str, str]], depth: int | None) -> None:
    with tempfile.TemporaryDirectory(dir=scratch) as folder:
        root = copy_fixture_tree(FIXTURES / "extensions" / "gizmo", Path(folder) / "gizmo")
        source = root / "extension"
        placed = [(place(source, where, i, kind, root), kind)
                  for i, (where, kind) in enumerate(entries)]
        if depth is not None:
            deep = source / "lib" / "deep"
            deep.mkdir(parents=True, exist_ok=True)
            for _ in range(depth):
                deep = deep / "d"
                deep.mkdir()
        with alarm():
            try:
                result = build_extension(root)
                found = list(result.warnings)
            except DiagnosticsError as exc:
                result, found = None, list(exc.diagnostics)
        by_file = {(d.file, d.code) for d in found}
        for path, kind in placed:
            if kind in SPECIAL:
                assert (f"extension/{path}", "source/special-file") in by_file, found
            elif kind in LOOPS:
                assert (f"extension/{path}", "discover/symlink-broken") in by_file, found
        too_deep = depth is not None and depth + 2 > MAX_DEPTH  # lib/deep/d... from the root
        assert any(d.code == "discover/tree-too-deep" for d in found) == too_deep
        expect_failure = too_deep or any(kind in SPECIAL for _, kind in placed)
        assert (result is None) == expect_failure, found
        assert not any(d.code.startswith("internal/") for d in found)


READERS = st.sampled_from(["trust", "snapshot", "pyproject", "arguments"])
FILES = st.sampled_from([*SPECIAL, "folder", "deep-json", "big", "not-utf8"])


def make_input(path: Path, kind: str) -> None:
    if kind == "fifo":
        os.mkfifo(path)
    elif kind in ("/dev/zero", "/dev/urandom"):
        path.symlink_to(kind)
    elif kind == "link-to-fifo":
        os.mkfifo(path.with_name("pipe"))
        path.symlink_to("pipe")
    elif kind == "folder":
        path.mkdir()
    elif kind == "deep-json":
        path.write_text("[" * 100_000 + "]" * 100_000)
    elif kind == "big":
        with path.open("wb") as stream:
            stream.truncate(65 * 1024 * 1024)  # sparse: past every bound, costs no disk
    else:
        path.write_bytes(b'{"caf\xe9": 1}')


@given(reader=READERS, kind=FILES)
def test_every_reader_of_user_files_refuses_special_input(scratch: Path, reader: str,
                                                          kind: str) -> None:
    with tempfile.TemporaryDirectory(dir=scratch) as folder:
        base = Path(folder)
        name = {"trust": "trust.json", "snapshot": "snapshot.json",
                "pyproject": "pyproject.toml", "arguments": "args.json"}[reader]
        make_input(base / name, kind)
        with alarm():
            if reader == "trust":
                projects, problems = read_trust(base)
                assert projects == {}
                assert [d.code for d in problems] == ["local/trust-file-invalid"]
            elif reader == "snapshot":
                with pytest.raises(DiagnosticsError) as caught:
                    read_snapshot(base / name)
                assert [d.code for d in caught.value.diagnostics] == ["state/snapshot-invalid"]
            elif reader == "pyproject":
                data, problems = read_pyproject(base)
                assert data is None or kind == "deep-json"  # `[[[...]]]` is no TOML either
                assert [d.code for d in problems] == ["project/pyproject-invalid"]
            else:
                with pytest.raises(EveBuildError) as raised:
                    read_arguments(f"@{base / name}")
                assert getattr(raised.value, "exit_code", None) == 2
                assert json.dumps(str(raised.value))  # a message, whatever it says
        if (base / name).is_dir() and not (base / name).is_symlink():
            (base / name).rmdir()  # (shutil.rmtree of a FIFO's path would block opening it)
