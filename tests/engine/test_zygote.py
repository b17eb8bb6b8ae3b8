"""Warm workers (eve_build.engine.zygote): forked from a pre-imported zygote, they keep
every property of a worker the build forks itself. Real `eve` processes, real signals."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from eve_build.engine import zygote
from eve_build.extension.build import build_extension
from tests.engine.test_lifeline import is_running, wait_for
from tests.golden_files import read_files

pytestmark = pytest.mark.skipif(not zygote.is_supported(), reason="Linux only")

TOOL = '''from pydantic import BaseModel
from eve_build.sdk import define_tool


class Input(BaseModel):
    n: int = {index}


def run(input: Input, ctx: object) -> dict[str, int]:
    return {{"n": input.n}}


tool = define_tool(description="Tool {index}.", input=Input, execute=run)
'''


def add_tools(root: Path, count: int) -> None:
    for index in range(count):
        (root / "extension" / "tools" / f"t{index:02d}.py").write_text(TOOL.format(index=index))


def eve(root: Path, tmp_path: Path, *args: str, **env: str) -> subprocess.Popen[str]:
    environment = {**os.environ, "EVE_HOME": str(tmp_path / "home"),
                   "EVE_CACHE_DIR": str(tmp_path / "cache"), **env}
    return subprocess.Popen([sys.executable, "-m", "eve_build", "extension", "build", *args],
                            cwd=root, env=environment, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def test_warm_cold_uncached_and_serial_builds_write_the_same_bytes(
        copy_fixture: Callable[[str], Path], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    root = copy_fixture("extensions/acme-crm")
    add_tools(root, 30)  # enough for two workers
    monkeypatch.setenv("EVE_CACHE_DIR", str(tmp_path / "cache"))
    spawned: list[str] = []  # one entry per worker the zygote forked
    real_spawn = zygote.Zygote.spawn

    def spying(self: zygote.Zygote, target: str, payload: object) -> zygote.WarmWorker:
        worker = real_spawn(self, target, payload)
        spawned.append(target)
        return worker

    monkeypatch.setattr(zygote.Zygote, "spawn", spying)
    outputs = []
    # (EVE_WARM_WORKERS, cache, workers, how many warm workers the build must fork; -1: at
    # least one, as many as the cores allow): the last reads every module from the cache
    # the first filled, so it imports nothing and forks none.
    for warm, cache, workers, forked in [("1", True, None, -1), ("1", False, None, -1),
                                         ("0", False, None, 0), ("1", False, 1, 1),
                                         ("1", True, None, 0)]:
        monkeypatch.setenv("EVE_WARM_WORKERS", warm)
        shutil.rmtree(root / "build" / "eve", ignore_errors=True)  # no stamp hit, all written
        spawned.clear()
        result = build_extension(root, use_cache=cache, workers=workers)
        assert result.checked and result.written, "the build ran (the stamp did not answer)"
        assert result.tools >= 30
        assert len(spawned) >= 1 if forked == -1 else len(spawned) == forked, \
            (warm, cache, workers, spawned)
        outputs.append(read_files(root / "build" / "eve"))
    assert all(output == outputs[0] for output in outputs[1:])


def test_a_worker_killed_mid_batch_is_named_and_the_rest_still_checked(
        copy_fixture: Callable[[str], Path], tmp_path: Path) -> None:
    root = copy_fixture("extensions/gizmo")
    add_tools(root, 4)
    marker = tmp_path / "worker.pid"
    (root / "extension" / "tools" / "t01.py").write_text(
        f"import os, time\nfrom pathlib import Path\n"
        f"Path({str(marker)!r}).write_text(str(os.getpid()))\ntime.sleep(60)\n")
    (root / "extension" / "tools" / "t03.py").write_text("tool = define_tool(\n")  # after it
    build = eve(root, tmp_path, EVE_IMPORT_TIMEOUT="120")
    try:
        assert wait_for(lambda: marker.exists() and marker.read_text() != "", 60)
        worker = int(marker.read_text())
        os.kill(worker, signal.SIGKILL)
        _out, err = build.communicate(timeout=60)
    finally:
        if build.poll() is None:
            build.kill()
    assert build.returncode == 1
    assert "engine/worker-crashed" in err and "killed by SIGKILL" in err
    assert "extension/tools/t01.py" in err
    assert "Traceback" not in err
    assert "extension/tools/t03.py" in err and "load/syntax-error" in err  # a fresh worker
    assert "t02.py" not in err  # checked, and fine


def test_a_module_that_forks_or_starts_threads_at_import_leaves_nothing_behind(
        copy_fixture: Callable[[str], Path], tmp_path: Path) -> None:
    root = copy_fixture("extensions/gizmo")
    add_tools(root, 3)
    marker = tmp_path / "forked.pid"
    tools = root / "extension" / "tools"
    (tools / "forks.py").write_text(
        "import os\nfrom pathlib import Path\n"
        f"if os.fork() == 0:\n    Path({str(marker)!r}).write_text(str(os.getpid()))\n"
        + TOOL.format(index=7))
    imported = tmp_path / "imported-by.txt"  # every process that imports the last module
    (tools / "threads.py").write_text(
        f"import os, threading, time\nwith open({str(imported)!r}, 'a') as f:\n"
        "    f.write(f'{os.getpid()}\\n')\n"
        "threading.Thread(target=lambda: time.sleep(3600), daemon=True).start()\n"
        + TOOL.format(index=8))
    build = eve(root, tmp_path, "--json")
    out, err = build.communicate(timeout=90)

    assert build.returncode == 0, err
    assert "Traceback" not in err
    assert json.loads(out)["status"] == "built"
    forked = int(marker.read_text())
    assert wait_for(lambda: not is_running(forked), 10)  # the copy never built, nor lingers
    manifest = json.loads(
        (root / "build" / "eve" / "gizmo" / "extension" / "_manifest.json").read_text())
    names = [tool["name"] for tool in manifest["contributions"]["tools"]]
    assert sorted(names) == ["forks", "spin", "t00", "t01", "t02", "threads"]  # each once
    assert len(imported.read_text().split()) == 1  # the forked copy went no further


def test_the_zygote_and_its_workers_end_with_a_sigterm_of_the_build(
        copy_fixture: Callable[[str], Path], tmp_path: Path) -> None:
    root = copy_fixture("extensions/gizmo")
    marker = tmp_path / "worker.pid"
    (root / "extension" / "tools" / "spins.py").write_text(
        f"import os\nfrom pathlib import Path\n"
        f"Path({str(marker)!r}).write_text(str(os.getpid()))\nwhile True:\n    pass\n")
    build = eve(root, tmp_path, EVE_IMPORT_TIMEOUT="120")
    try:
        assert wait_for(lambda: marker.exists() and marker.read_text() != "", 60)
        worker = int(marker.read_text())
        tree = _descendants(build.pid)
        assert worker in tree and len(tree) >= 2  # the zygote and the worker
        build.send_signal(signal.SIGTERM)
        build.wait(timeout=30)
    finally:
        if build.poll() is None:
            build.kill()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(is_running(pid) for pid in tree):
        time.sleep(0.05)
    survivors = [pid for pid in tree if is_running(pid)]
    for pid in survivors:
        os.kill(pid, signal.SIGKILL)
    assert survivors == []
    assert build.returncode == -signal.SIGTERM


def _descendants(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        children = {int(p) for p in (task / "children").read_text().split()}
        found |= children
        for child in children:
            found |= _descendants(child)
    return found


def test_jobs_run_from_this_process_when_the_zygote_is_gone() -> None:
    from eve_build.engine.workers import run_jobs

    with zygote.warm_workers(["json"]) as warm:
        assert warm is not None
        os.kill(warm.pid, signal.SIGKILL)
        os.waitpid(warm.pid, 0)
        outcomes = run_jobs("json:dumps", [[1, 2], {"a": None}], budget=30, zygote=warm)

    assert [o.result for o in outcomes] == ["[1, 2]", '{"a": null}']
    assert all(o.failure is None for o in outcomes)
