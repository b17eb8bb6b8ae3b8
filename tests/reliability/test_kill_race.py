"""Class 3 under fire: SIGKILL `eve extension build` of a 200-tool extension at random
moments, and race two builds. The output is always the old or the new one, whole.

The counts are small so the default suite stays fast (docs/reliability.md lists them);
the moments are drawn from a seeded generator over the measured length of one build.
"""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from eve_build.extension.build import build_extension
from eve_build.formats.writer import repair_output, write_tree

TOOLS = 200
KILLS = 8
RACES = 2
SEED = 10

TOOL = '''from pydantic import BaseModel
from eve_build.sdk import define_tool


class Input(BaseModel):
    query: str
    limit: int = {index}


def run(input: Input, ctx: object) -> dict[str, object]:
    return {{"query": input.query}}


tool = define_tool(description="Tool {index}, {edition}.", input=Input, execute=run)
'''


def write_extension(root: Path, edition: str) -> Path:
    tools = root / "extension" / "tools"
    tools.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text(
        '[project]\nname = "many-tools"\nversion = "0.1.0"\n'
        'dependencies = ["eve-build", "pydantic>=2"]\n\n[tool.eve.extension]\n'
        'source = "extension"\n')
    (root / "extension" / "extension.py").write_text(
        "from eve_build.sdk import define_extension\n\nextension = define_extension()\n")
    for index in range(TOOLS):
        (tools / f"tool_{index:03d}.py").write_text(TOOL.format(index=index, edition=edition))
    return root


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def start_build(root: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "EVE_HOME": str(root.parent / "eve-home")}
    return subprocess.Popen([sys.executable, "-m", "eve_build", "extension", "build",
                             "--path", str(root)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)


@pytest.fixture(scope="module")
def editions(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, bytes],
                                                                  dict[str, bytes]]:
    base = tmp_path_factory.mktemp("kill")
    old_root = write_extension(base / "old" / "many-tools", "old")
    build_extension(old_root)
    new_root = write_extension(base / "new" / "many-tools", "new")
    build_extension(new_root)
    old, new = (snapshot(r / "build" / "eve") for r in (old_root, new_root))
    assert old != new
    shutil.rmtree(new_root / "build")
    return new_root, old, new


def _reset(root: Path, old: dict[str, bytes]) -> None:
    write_tree(root / "build" / "eve", old)


def test_killed_builds_leave_the_old_or_the_new_output_whole(
        editions: tuple[Path, dict[str, bytes], dict[str, bytes]]) -> None:
    root, old, new = editions
    output = root / "build" / "eve"
    _reset(root, old)
    started = time.perf_counter()  # the length of one build: only to spread the kill moments
    done = start_build(root)
    assert done.wait(timeout=300) == 0, done.stderr.read() if done.stderr else ""
    length = time.perf_counter() - started
    draw = random.Random(SEED)
    for _ in range(KILLS):
        _reset(root, old)
        process = start_build(root)
        time.sleep(draw.uniform(0.0, length))
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate(timeout=60)
        repair_output(output)  # what the next build does first
        current = snapshot(output)
        assert current in (old, new)
        leftovers = [p.name for p in output.parent.iterdir() if p.name not in ("eve", ".eve-cache")]
        assert leftovers == []


# A build that stops for good at one step of writing its output (eve_build.output.writer),
# after creating the marker file: the test kills it there, whatever the machine's speed.
PAUSED_BUILD = """
import os, pathlib, runpy, shutil, sys, time

moment, marker, root = sys.argv[1], pathlib.Path(sys.argv[2]), sys.argv[3]


def pause():
    marker.write_text(str(os.getpid()))
    while True:
        time.sleep(60)


if moment == "staged":  # every file staged, nothing renamed yet
    from eve_build.formats import writer

    real_swap = writer.swap_into_place

    def swap_into_place(staging, target):
        if target.name == "eve":
            pause()
        return real_swap(staging, target)

    writer.swap_into_place = swap_into_place
elif moment == "between-renames":  # the old output moved aside, the new one not in place
    real_replace = pathlib.Path.replace

    def replace(self, target):
        done = real_replace(self, target)
        if pathlib.Path(target).name.startswith(".eve.previous-"):
            pause()
        return done

    pathlib.Path.replace = replace
elif moment == "swapped":  # the new output in place, the old one not removed yet
    real_rmtree = shutil.rmtree

    def rmtree(path, *args, **kwargs):
        if pathlib.Path(path).name.startswith(".eve.previous-"):
            pause()
        return real_rmtree(path, *args, **kwargs)

    shutil.rmtree = rmtree
sys.argv = ["eve", "extension", "build", "--path", root]
runpy.run_module("eve_build", run_name="__main__", alter_sys=True)
"""


@pytest.mark.parametrize(("moment", "edition"), [
    ("staged", "old"), ("between-renames", "old"), ("swapped", "new")])
def test_a_build_killed_at_each_step_of_the_swap_leaves_one_whole_output(
        editions: tuple[Path, dict[str, bytes], dict[str, bytes]], tmp_path: Path,
        moment: str, edition: str) -> None:
    root, old, new = editions
    output = root / "build" / "eve"
    _reset(root, old)
    marker = tmp_path / "paused"
    env = {**os.environ, "EVE_HOME": str(root.parent / "eve-home")}
    process = subprocess.Popen([sys.executable, "-c", PAUSED_BUILD, moment, str(marker),
                                str(root)], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, start_new_session=True)
    try:
        deadline = time.monotonic() + 300
        while not (marker.exists() and marker.read_text()):
            assert process.poll() is None, process.communicate()[1].decode()
            assert time.monotonic() < deadline, f"the build never reached `{moment}`"
            time.sleep(0.02)
    finally:
        with contextlib.suppress(ProcessLookupError):  # it may have failed on its own
            os.killpg(process.pid, signal.SIGKILL)
        process.communicate(timeout=60)
    repair_output(output)  # what the next build does first
    assert snapshot(output) == (old if edition == "old" else new)
    assert sorted(p.name for p in output.parent.iterdir()) == [".eve-cache", "eve"]


def test_racing_builds_leave_one_whole_output(
        editions: tuple[Path, dict[str, bytes], dict[str, bytes]]) -> None:
    root, old, new = editions
    for _ in range(RACES):
        _reset(root, old)
        racers = [start_build(root) for _ in range(2)]
        codes = [racer.wait(timeout=300) for racer in racers]
        for racer in racers:
            racer.communicate(timeout=60)
        assert codes == [0, 0]
        assert snapshot(root / "build" / "eve") == new
        assert sorted(p.name for p in (root / "build").iterdir()) == [".eve-cache", "eve"]
