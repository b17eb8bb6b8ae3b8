"""`.ci/run` and the PostgreSQL fixture: a green CI means the store was tested on PostgreSQL.

`.ci/run` is run for real (bash) from a copy whose Debian binary folder is a temporary
one, with stub `apt-get`, `sleep` and `python3` first on PATH, so nothing is installed.
"""

from __future__ import annotations

import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from tests.session import postgres_server

ROOT = Path(__file__).resolve().parent.parent
DEBIAN_DIR = "/usr/lib/postgresql"


def _stub(folder: Path, name: str, body: str) -> None:
    path = folder / name
    path.write_text(f"#!/bin/bash\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


SUITE_INSTALL = "tests/mcp/conformance_suite.py"
LANGCHAIN_BUILD = "tests/mcp/langchain_env.py"


def _ci_copy(tmp_path: Path, install_works: bool, suite_works: bool = True,
             langchain_works: bool = True) -> tuple[Path, dict[str, str], Path]:
    """A copy of `.ci/run` in `tmp_path/repo/.ci`, its environment and the calls log."""
    script = (ROOT / ".ci" / "run").read_text()
    assert DEBIAN_DIR in script, "the test redirects the script's Debian binary folder"
    debian = tmp_path / "debian"
    debian.mkdir()
    (tmp_path / "repo" / ".ci").mkdir(parents=True)
    copy = tmp_path / "repo" / ".ci" / "run"
    copy.write_text(script.replace(DEBIAN_DIR, str(debian)))
    copy.chmod(0o755)
    log = tmp_path / "calls.log"
    stubs = tmp_path / "stubs"
    stubs.mkdir()
    # An install that works leaves initdb where Debian puts it.
    installed = f"mkdir -p {debian}/16/bin && touch {debian}/16/bin/initdb && chmod +x " \
                f"{debian}/16/bin/initdb" if install_works else "exit 100"
    _stub(stubs, "apt-get", f'echo "apt-get $*" >> {log}\n'
                            f'if [ "$1" = install ]; then {installed}; fi')
    _stub(stubs, "sleep", f'echo "sleep $*" >> {log}')
    # `python3 -m venv .venv` makes a venv whose pip, python and lint-imports only record
    # their calls.
    langchain = "exit 0" if langchain_works else 'echo "Connection refused" >&2; exit 1'
    venv_tool = (f'#!/bin/bash\necho "$(basename $0) CI=$CI $*" >> {log}\n'
                 f'if [ "$1" = {LANGCHAIN_BUILD} ]; then {langchain}; fi')
    suite = "exit 0" if suite_works else 'echo "error: could not be fetched" >&2; exit 1'
    _stub(stubs, "python3", f'echo "python3 CI=$CI $*" >> {log}\n'
                            f'if [ "$1" = {SUITE_INSTALL} ]; then {suite}; fi\n'
                            f'mkdir -p .venv/bin\n'
                            f"for tool in pip python lint-imports; do printf '%s\\n' '{venv_tool}' "
                            f'> .venv/bin/$tool; chmod +x .venv/bin/$tool; done')
    tools = tmp_path / "tools"
    tools.mkdir()
    for tool in ("dirname", "bash", "mkdir", "touch", "chmod", "basename"):
        found = shutil.which(tool)
        assert found is not None
        (tools / tool).symlink_to(found)
    env = {"PATH": f"{stubs}:{tools}", "HOME": str(tmp_path)}
    return copy, env, log


def test_ci_fails_when_postgresql_cannot_be_installed(tmp_path: Path) -> None:
    copy, env, log = _ci_copy(tmp_path, install_works=False)
    done = subprocess.run([shutil.which("bash") or "bash", str(copy)], env=env,
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 1, done.stderr
    assert "PostgreSQL could not be installed (3 attempts)" in done.stderr
    calls = log.read_text().splitlines()
    assert calls.count("apt-get install -y -qq postgresql") == 3, calls
    assert not [line for line in calls if line.startswith("python3")], "the tests never ran"


def test_ci_installs_postgresql_then_runs_the_tests_with_ci_set(tmp_path: Path) -> None:
    copy, env, log = _ci_copy(tmp_path, install_works=True)
    done = subprocess.run([shutil.which("bash") or "bash", str(copy)], env=env,
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    calls = log.read_text().splitlines()
    assert calls.count("apt-get install -y -qq postgresql") == 1, calls
    assert "python3 CI=true -m venv .venv" in calls
    assert "lint-imports CI=true --no-cache" in calls, calls  # the layers, then the suite
    assert calls.index("lint-imports CI=true --no-cache") < calls.index(
        "python CI=true -m pytest -q -n auto"), calls


def test_missing_postgresql_fails_under_ci_and_skips_elsewhere(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(postgres_server, "find_bin_dir", lambda: None)
    with pytest.raises(pytest.fail.Exception, match="CI is set"):
        postgres_server.required_bin_dir({"CI": "true"})
    for environ in ({}, {"CI": ""}, {"CI": "false"}):
        with pytest.raises(pytest.skip.Exception, match="install the `postgresql` package"):
            postgres_server.required_bin_dir(environ)


def test_postgresql_binaries_found_are_used_under_ci(monkeypatch: pytest.MonkeyPatch,
                                                     tmp_path: Path) -> None:
    monkeypatch.setattr(postgres_server, "find_bin_dir", lambda: tmp_path)
    assert postgres_server.required_bin_dir({"CI": "true"}) == tmp_path


def test_ci_installs_node_and_the_conformance_suite_before_the_tests(tmp_path: Path) -> None:
    copy, env, log = _ci_copy(tmp_path, install_works=True)
    done = subprocess.run([shutil.which("bash") or "bash", str(copy)], env=env,
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    calls = log.read_text().splitlines()
    install = f"python3 CI=true {SUITE_INSTALL}"
    assert calls.count(install) == 1, calls
    assert calls.index(install) < calls.index("python CI=true -m pytest -q -n auto"), calls


def test_ci_fails_clearly_when_the_conformance_suite_cannot_be_installed(
        tmp_path: Path) -> None:
    copy, env, log = _ci_copy(tmp_path, install_works=True, suite_works=False)
    done = subprocess.run([shutil.which("bash") or "bash", str(copy)], env=env,
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 1, done.stderr
    assert "the MCP conformance suite could not be installed" in done.stderr
    assert "is the network reachable?" in done.stderr
    assert "could not be fetched" in done.stderr  # the installer's own reason is shown too
    calls = log.read_text().splitlines()
    assert calls.count(f"python3 CI=true {SUITE_INSTALL}") == 3, calls
    assert [c for c in calls if c.startswith("sleep")] == ["sleep 10", "sleep 20"], calls
    assert not [c for c in calls if "-m venv" in c or "pytest" in c], "the tests never ran"


def test_ci_builds_langchains_venv_before_the_tests(tmp_path: Path) -> None:
    copy, env, log = _ci_copy(tmp_path, install_works=True)
    done = subprocess.run([shutil.which("bash") or "bash", str(copy)], env=env,
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    calls = log.read_text().splitlines()
    build = f"python CI=true {LANGCHAIN_BUILD}"  # the test venv's Python, which has uv
    assert calls.count(build) == 1, calls
    assert calls.index("pip CI=true install -q -e .[test]") < calls.index(build), calls
    assert calls.index(build) < calls.index("python CI=true -m pytest -q -n auto"), calls


def test_ci_fails_clearly_when_langchains_venv_cannot_be_built(tmp_path: Path) -> None:
    copy, env, log = _ci_copy(tmp_path, install_works=True, langchain_works=False)
    done = subprocess.run([shutil.which("bash") or "bash", str(copy)], env=env,
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 1, done.stderr
    assert "LangChain's venv (langchain-mcp-adapters) could not be built (3 attempts;" in (
        done.stderr)
    assert "Connection refused" in done.stderr  # the builder's own reason is shown too
    calls = log.read_text().splitlines()
    assert calls.count(f"python CI=true {LANGCHAIN_BUILD}") == 3, calls
    assert [c for c in calls if c.startswith("sleep")] == ["sleep 10", "sleep 20"], calls
    assert not [c for c in calls if "pytest" in c], "the tests never ran"
