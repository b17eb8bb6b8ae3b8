"""`eve init` for real, in subprocesses: the printed next steps pass as printed, an
extension folder is added with `eve add`, the agent runs one offline turn, and the
scaffold's own test passes with its own pytest.

The venv is made with the `uv` of the test extra (put on PATH here), as a user with uv
gets it; eve-build comes from this checkout, as `init` always installs itself.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from eve_build.scaffold.agent import ADD_PLACEHOLDER
from tests.conftest import FIXTURES, copy_fixture_tree

pytestmark = pytest.mark.integration


def _environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTEST_", "PYTHONPATH", "VIRTUAL_ENV", "EVE_MODEL"))}
    tools = str(Path(sys.executable).parent)  # uv, from the test extra
    return {**env, "PATH": f"{tools}{os.pathsep}{env.get('PATH', '')}",
            "UV_PYTHON_DOWNLOADS": "never", "NO_COLOR": "1"}


def _shell(line: str, cwd: Path, env: dict[str, str], stdin: str = ""
           ) -> subprocess.CompletedProcess[str]:
    return subprocess.run(line, shell=True, cwd=cwd, env=env, text=True, input=stdin,
                          timeout=600, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          check=False)


def test_init_then_add_then_run_as_printed(tmp_path: Path) -> None:
    env = _environment()
    extension = copy_fixture_tree(FIXTURES / "extensions" / "gizmo", tmp_path / "gizmo")

    init = subprocess.run([sys.executable, "-m", "eve_build", "init", "demo"], cwd=tmp_path,
                          env=env, text=True, capture_output=True, timeout=600, check=False)
    assert init.returncode == 0, init.stdout + init.stderr
    steps = [line.strip() for line in init.stdout.split("Next steps", 1)[1].splitlines()[1:]
             if line.strip()]
    assert steps == ["cd demo", ".venv/bin/python -m pytest",
                     f".venv/bin/eve add {ADD_PLACEHOLDER}", ".venv/bin/eve chat --model test"]
    target = tmp_path / "demo"
    status = _shell("git status --porcelain", target, env)
    assert status.stdout == "", "the build output and .venv are ignored, the rest committed"

    # each line as printed, from where the user stands, `cd` carried over
    shown = {ADD_PLACEHOLDER: str(extension)}
    outputs = []
    for line in steps[1:]:
        command = " ".join(shown.get(word, word) for word in line.split(" "))
        done = _shell(command, target, env, stdin="/exit\n")
        assert done.returncode == 0, f"`{command}` failed:\n{done.stdout}"
        outputs.append(done.stdout)
    assert "1 passed" in outputs[0]
    assert "Added gizmo 1.0.0 as `gizmo`" in outputs[1]

    run = _shell('.venv/bin/eve run --model test "hi"', target, env)
    assert run.returncode == 0, run.stdout
    assert "tool: gizmo__spin ok" in run.stdout and "tool: greet ok" in run.stdout

    tests = _shell(".venv/bin/python -m pytest -q", target, env)  # still passes, mounted
    assert tests.returncode == 0 and "1 passed" in tests.stdout, tests.stdout
