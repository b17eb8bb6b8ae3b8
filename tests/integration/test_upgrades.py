"""The upgrade story with real wheels in a real venv, through the `eve` command line.

An agent is built against gizmo 0.1.0; installing 0.2.0 makes `eve call` refuse with
the message of DESIGN.md section 10, `eve build` says what changed, then `eve call`
works. The same for a downgrade, and for an editable install edited in place.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import FIXTURES
from tests.integration.conftest import Venv, build_env

pytestmark = pytest.mark.integration
TIMEOUT = 300

REGION_CONFIG = '''from pydantic import BaseModel

from eve_build.sdk import define_extension


class Config(BaseModel):
    region: str = "eu"


extension = define_extension(config=Config)
'''
WIND_TOOL = '''from pydantic import BaseModel

from eve_build.sdk import define_tool


class WindInput(BaseModel):
    turns: int


tool = define_tool(description="Wind the gizmo up.", input=WindInput,
                   execute=lambda input, ctx: {"wound": input.turns})
'''
AGENT_PYPROJECT = """[project]
name = "upgrade-agent"
version = "0.1.0"
requires-python = ">=3.11"
dependencies = ["eve-build", "gizmo"]
"""


def _run(argv: list[str], cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, env=build_env(EVE_HOME=str(home)), text=True,
                          stdin=subprocess.DEVNULL, capture_output=True, check=False,
                          timeout=TIMEOUT)


def _release(source: Path, version: str, *, wind: bool, required: bool) -> None:
    """Turn the gizmo source into another release."""
    pyproject = source / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    current = next(line for line in text.splitlines() if line.startswith("version = "))
    pyproject.write_text(text.replace(current, f'version = "{version}"'), encoding="utf-8")
    config = REGION_CONFIG.replace('region: str = "eu"', "region: str") if required \
        else REGION_CONFIG
    (source / "extension" / "extension.py").write_text(config, encoding="utf-8")
    tool = source / "extension" / "tools" / "wind.py"
    if wind:
        tool.write_text(WIND_TOOL, encoding="utf-8")
    else:
        tool.unlink(missing_ok=True)


def _wheel(source: Path, outdir: Path) -> Path:
    shutil.rmtree(source / "build", ignore_errors=True)
    done = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--wheel",
                           "--outdir", str(outdir), str(source)], cwd=source, env=build_env(),
                          text=True, capture_output=True, check=False, timeout=TIMEOUT)
    assert done.returncode == 0, done.stdout + done.stderr
    (wheel,) = outdir.glob("*.whl")
    return wheel


class Agent:
    def __init__(self, root: Path, venv: Venv, home: Path) -> None:
        self.root, self.venv, self.home = root, venv, home

    def eve(self, *args: str) -> subprocess.CompletedProcess[str]:
        return _run([str(self.venv.python), "-m", "eve_build", *args, "--path", str(self.root)],
                    self.root, self.home)

    def install(self, *args: str) -> None:
        done = self.venv.pip("install", "-q", "--no-deps", *args, cwd=self.root)
        assert done.returncode == 0, done.stdout


@pytest.fixture
def agent(tmp_path: Path, make_venv: Callable[[str], Venv]) -> Agent:
    root = tmp_path / "agent-app"
    (root / "agent" / "extensions").mkdir(parents=True)
    (root / "pyproject.toml").write_text(AGENT_PYPROJECT)
    (root / "agent" / "instructions.md").write_text("You spin gizmos.\n")
    (root / "agent" / "extensions" / "gizmo.py").write_text(
        'from gizmo import gizmo\n\nmount = gizmo(region="us")\n')
    home = tmp_path / "eve-home"
    home.mkdir()
    return Agent(root, make_venv("agent-venv"), home)


def _gizmo_source(tmp_path: Path) -> Path:
    source = tmp_path / "gizmo-src"
    shutil.copytree(FIXTURES / "extensions" / "gizmo", source,
                    ignore=shutil.ignore_patterns("build", "dist", "__pycache__"))
    return source


def _settled(agent: Agent) -> None:
    """The next `eve build` after the one that followed a change does nothing."""
    done = agent.eve("build", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    payload = json.loads(done.stdout)
    assert payload["written"] is False
    assert payload["changes"] == []
    assert {e["state"] for e in payload["extensions"]} <= {"up-to-date"}


def _refused(agent: Agent, message: str) -> str:
    done = agent.eve("call", "gizmo__spin", '{"times": 1}')
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"error runtime/extension-changed: {message}" in done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    return done.stderr


def test_an_upgrade_and_a_downgrade_of_installed_wheels(agent: Agent, tmp_path: Path) -> None:
    source = _gizmo_source(tmp_path)
    _release(source, "0.1.0", wind=False, required=False)
    old = _wheel(source, tmp_path / "wheels-0.1.0")
    _release(source, "0.2.0", wind=True, required=True)
    new = _wheel(source, tmp_path / "wheels-0.2.0")

    agent.install(str(old))
    built = agent.eve("build")
    assert built.returncode == 0, built.stdout + built.stderr
    assert json.loads(agent.eve("call", "gizmo__spin", '{"times": 2}').stdout) == {"spins": 2}

    agent.install(str(new))
    refused = _refused(agent, "extension gizmo changed since the agent was built "
                              "(0.1.0 -> 0.2.0): run eve build")
    # the hint says what `eve build` does for an installed wheel, and how to go back
    assert ("hint: run `eve build`: it reads the installed `gizmo`'s manifest (nothing is "
            "installed or rebuilt)") in refused
    assert "install gizmo==0.1.0`" in refused
    rebuilt = agent.eve("build")
    assert rebuilt.returncode == 0, rebuilt.stdout + rebuilt.stderr
    assert "  changed: gizmo 0.1.0 -> 0.2.0: 1 tool added (gizmo__wind), config field region " \
           "now required\n" in rebuilt.stdout
    wound = agent.eve("call", "gizmo__wind", '{"turns": 3}')
    assert (wound.returncode, json.loads(wound.stdout)) == (0, {"wound": 3})
    _settled(agent)

    agent.install("--force-reinstall", str(old))
    _refused(agent, "extension gizmo changed since the agent was built (0.2.0 -> 0.1.0): "
                    "run eve build")
    downgraded = agent.eve("build")
    assert "  changed: gizmo 0.2.0 -> 0.1.0: 1 tool removed (gizmo__wind), config field region " \
           "now optional\n" in downgraded.stdout
    assert json.loads(agent.eve("call", "gizmo__spin", '{"times": 1}').stdout) == {"spins": 1}
    _settled(agent)
    gone = agent.eve("call", "gizmo__wind", '{"turns": 1}')
    assert gone.returncode == 1
    assert "Traceback" not in gone.stdout + gone.stderr


def test_an_editable_install_edited_in_place(agent: Agent, tmp_path: Path) -> None:
    source = _gizmo_source(tmp_path)
    _release(source, "0.2.0", wind=False, required=False)
    agent.install("--no-build-isolation", "-e", str(source))
    built = agent.eve("build")
    assert built.returncode == 0, built.stdout + built.stderr
    assert json.loads(agent.eve("call", "gizmo__spin", '{"times": 1}').stdout) == {"spins": 1}

    (source / "extension" / "tools" / "wind.py").write_text(WIND_TOOL, encoding="utf-8")
    _refused(agent, "extension gizmo changed since the agent was built (0.2.0, its source was "
                    "edited): run eve build")
    rebuilt = agent.eve("build")
    assert rebuilt.returncode == 0, rebuilt.stdout + rebuilt.stderr
    assert "  gizmo: built\n" in rebuilt.stdout
    assert "  changed: gizmo 0.2.0 rebuilt: 1 tool added (gizmo__wind)\n" in rebuilt.stdout
    wound = agent.eve("call", "gizmo__wind", '{"turns": 4}')
    assert (wound.returncode, json.loads(wound.stdout)) == (0, {"wound": 4})
    _settled(agent)

    pyproject = source / "pyproject.toml"  # issue 30: a dependency changes no output file
    pyproject.write_text(pyproject.read_text(encoding="utf-8").replace(
        '"pydantic>=2"', '"pydantic>=2", "anyio"'), encoding="utf-8")
    rebuilt = agent.eve("build")
    assert rebuilt.returncode == 0, rebuilt.stdout + rebuilt.stderr
    assert "  gizmo: built\n" in rebuilt.stdout
    wound = agent.eve("call", "gizmo__wind", '{"turns": 5}')
    assert (wound.returncode, json.loads(wound.stdout)) == (0, {"wound": 5})
    _settled(agent)
