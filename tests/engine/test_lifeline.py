"""Build workers die with their parent: SIGTERM, SIGINT, SIGHUP (and SIGKILL) of a real
`eve extension build` whose tool module spins at import leave no worker running."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, copy_fixture_tree

SPIN = '''\
import os
from pathlib import Path

Path({marker!r}).write_text(str(os.getpid()))
while True:
    pass
'''


def children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        found |= {int(p) for p in (task / "children").read_text().split()}
    return found


def descendants(pid: int) -> set[int]:
    found = children(pid)
    for child in list(found):
        if is_running(child):
            found |= descendants(child)
    return found


def is_running(pid: int) -> bool:
    """Alive and not a zombie (an orphan's zombie is init's to reap)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def wait_for(condition: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def ends_within(pid: int, seconds: float) -> bool:
    return wait_for(lambda: not is_running(pid), seconds)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP,
                                    signal.SIGKILL], ids=lambda n: signal.Signals(n).name)
def test_no_worker_outlives_a_signalled_extension_build(
        copy_fixture: Callable[[str], Path], tmp_path: Path, number: int) -> None:
    root = copy_fixture("extensions/gizmo")
    marker = tmp_path / "worker.pid"
    (root / "extension" / "tools" / "spin.py").write_text(SPIN.format(marker=str(marker)))
    env = {**os.environ, "EVE_HOME": str(tmp_path / "home"), "EVE_IMPORT_TIMEOUT": "120",
           "EVE_CACHE_DIR": str(tmp_path / "cache")}
    log = tmp_path / "stderr.txt"
    workers: set[int] = set()
    with log.open("w") as stream:  # a file, not a pipe: a surviving worker would hold a pipe
        build = subprocess.Popen([sys.executable, "-m", "eve_build", "extension", "build"],
                                 cwd=root, env=env, stdout=stream, stderr=stream,
                                 start_new_session=True)
    try:
        assert wait_for(marker.exists, 60), "the worker never reached the spinning module"
        assert wait_for(lambda: marker.read_text().strip() != "", 5)
        workers = children(build.pid)
        assert int(marker.read_text()) in workers
        build.send_signal(number)
        build.wait(timeout=30)
        survivors = [pid for pid in sorted(workers) if not ends_within(pid, 10)]
    finally:
        if build.poll() is None:
            build.kill()
            build.wait()
        for pid in workers:  # never leave a spinning process behind, even when failing
            if is_running(pid):
                os.kill(pid, signal.SIGKILL)
    assert survivors == []
    assert "Traceback" not in log.read_text()
    if number != signal.SIGINT:
        assert build.returncode == -number  # ended by the signal, as without eve-build
    else:
        assert build.returncode != 0
    assert not (root / "build" / "eve").exists()  # nothing half-written was published


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGINT],
                         ids=lambda n: signal.Signals(n).name)
def test_no_member_build_or_worker_outlives_a_signalled_agent_build(
        tmp_path: Path, number: int) -> None:
    """Two stale workspace members build in processes of their own, each with workers."""
    root = tmp_path / "app"
    copy_fixture_tree(FIXTURES / "apps" / "directory-mount", root)
    for extension in ("acme-crm", "gizmo"):
        copy_fixture_tree(FIXTURES / "extensions" / extension, root / "packages" / extension)
    marker = tmp_path / "worker.pid"
    (root / "packages" / "gizmo" / "extension" / "tools" / "spin.py").write_text(
        SPIN.format(marker=str(marker)))
    env = {**os.environ, "EVE_HOME": str(tmp_path / "home"), "EVE_IMPORT_TIMEOUT": "120",
           "EVE_CACHE_DIR": str(tmp_path / "cache")}
    log = tmp_path / "stderr.txt"
    tree: set[int] = set()
    with log.open("w") as stream:
        build = subprocess.Popen([sys.executable, "-m", "eve_build", "build"], cwd=root,
                                 env=env, stdout=stream, stderr=stream, start_new_session=True)
    try:
        assert wait_for(marker.exists, 90), "the worker never reached the spinning module"
        assert wait_for(lambda: marker.read_text().strip() != "", 5)
        tree = descendants(build.pid)
        assert int(marker.read_text()) in tree
        build.send_signal(number)
        build.wait(timeout=30)
        survivors = [pid for pid in sorted(tree) if not ends_within(pid, 10)]
    finally:
        if build.poll() is None:
            build.kill()
            build.wait()
        for pid in tree:
            if is_running(pid):
                os.kill(pid, signal.SIGKILL)
    assert survivors == []
    assert "Traceback" not in log.read_text()
    assert build.returncode != 0
