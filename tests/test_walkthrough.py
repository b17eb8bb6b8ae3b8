"""docs/walkthrough.md cannot drift: every console block of the page marked
```` ```console walk ```` (with its two variants below) is run here, in order, in a fresh
folder that stands for the page's `/tmp/walk`, and each `$` command's output (stdout and
stderr, as the page shows them) must be what the page shows under it.

    pytest tests/test_walkthrough.py                   # check the page
    pytest tests/test_walkthrough.py --update-golden   # rewrite the page's outputs

The commands run with bash, one after another, each in the folder the previous ones left
(`cd` is followed); a command that writes a file with a here-document
(`cat > mcp_http.py <<'EOF'` ... `EOF`) is one command, its lines included, so the script
the page shows is the one that runs. A block whose expected output ends with `exit N`
also checks the exit code; any other command must exit 0.

Two more kinds of block stand for a second terminal:

- ```` ```console walk background ````: its one command (`eve serve --port 8765`) starts
  in the background, in a process group of its own as in a terminal; the walk goes on
  once it has printed as many stdout lines as the page shows. The blocks after it are the
  second terminal.
- ```` ```console walk log ````: Ctrl-C in the first terminal (SIGINT to that process
  group, then, as `tests/waiting.py::stop_process` does, a wait and a kill after the
  deadline); the block is its stderr, then `exit N` (always shown). The background block
  is compared with its whole stdout then.

Blocks the page does not mark (the clone and the install of section 1) are illustrations,
and the page says what its `.venv` stands for here.

Normalised before comparing (the page keeps what one run printed): the temporary folder
becomes `/tmp/walk` (and this checkout `/tmp/walk/eve-build`); durations (`(4.4 s)`,
`in 1.80s`), the versions pytest prints and the width of its `====` rules; the process
ids uvicorn logs and the client ports of its access lines. The server's port: the page
shows `--port 8765`, a fixed port two pytest-xdist workers (or a developer's own server)
would collide on, so the test serves on port 0, reads the bound port from the `serving
on` line, puts it for 8765 in the later commands (the scripts' URLs included) and 8765
back for it in every output. With `--update-golden` the outputs are written back into the
page, with durations, process ids and client ports as measured.

The walk's machine: `eve` and `python` on PATH are those of the clone's `.venv`, and no
`uv`. That `.venv` is a throwaway venv in the test's folder, layered on the test's venv (a
`.pth` line `site.addsitedir(<test venv site-packages>)`: eve-build, editable, pip and
every dependency are seen, while installs land in the throwaway venv, the prefix of the
interpreter pip runs on; made `--without-pip` in a fraction of a second, its `eve` the
test venv's console script on its own interpreter), because section 3's `eve add`
installs into the environment running eve (`python -m pip`, `eve_build.add.installer`) and
the test's own venv must never change: the test checks that wx-alerts is installed in the
throwaway venv and not in its own. HOME is a folder
of the test's too (the MCP SDK's stdio client passes HOME and PATH only, so `eve mcp`
must not find a developer's `~/.eve`). On a machine without `curl`, a stand-in doing the
same GET (`write_curl`) is put on PATH for section 4's `curl -s`.

No network: pip's configuration is dropped and `PIP_NO_INDEX=1` set; the index is a folder
of wheels re-packed from the test's venv (`PIP_FIND_LINKS`, the way `eve extension init`
re-packs eve-build's dependencies) holding what PyPI would give the walk: the scaffold's
`test` extra (pytest, build) and hatchling, and no eve-build. So the isolated
`eve extension pack` fails the way the page shows, on the pinned `eve-build` of
`[build-system]`, as it does against PyPI (without hatchling there, pip names hatchling).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import sysconfig
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

import pytest

from eve_build.scaffold.wheelhouse import find_requirement_closure, write_distribution_wheel
from tests.conftest import FIXTURES, REPO, copy_fixture_tree
from tests.waiting import DEADLINE, wait_until

pytestmark = pytest.mark.integration

PAGE = REPO / "docs" / "walkthrough.md"
WALK = "/tmp/walk"
BLOCK = re.compile(r"^```console walk(?: (background|log))?\n(.*?)^```\n",
                   re.MULTILINE | re.DOTALL)
HEREDOC = re.compile(r"<<-?\s*(['\"]?)([A-Za-z_]\w*)\1")
EXIT = re.compile(r"^exit (-?\d+)$")
PORT = re.compile(r"--port (\d+)")
URL_PORT = re.compile(r"http://[\w.\[\]:]+?:(\d+)")
TIMEOUT = 900.0
INDEX = ("pytest", "build", "hatchling")
"""What the walk's stand-in for an index holds (with what each requires): the scaffold's
`test` extra (eve_build/scaffold/metadata.py), and hatchling, the isolated build's other
`[build-system]` requirement, which PyPI has too."""


@dataclass
class Command:
    text: str
    expected: list[str] = field(default_factory=list)


@dataclass
class Block:
    match: re.Match[str]
    kind: str  # "" (run), "background" or "log"
    commands: list[Command]
    lines: list[str]  # the block's text, line by line (a log block's expected output)


def read_commands(body: str) -> list[Command]:
    """The `$` commands of a block, each with the lines shown under it; a here-document's
    lines, up to its delimiter, belong to its command."""
    commands: list[Command] = []
    lines = iter(body.splitlines())
    for line in lines:
        if line.startswith("$ "):
            text = [line[2:]]
            if heredoc := HEREDOC.search(line):
                for inner in lines:
                    text.append(inner)
                    if inner == heredoc[2]:
                        break
            commands.append(Command("\n".join(text)))
        elif commands:
            commands[-1].expected.append(line)
    return commands


def read_blocks(page: str) -> list[Block]:
    """Each walk block of the page, in order."""
    return [Block(match, match[1] or "", read_commands(match[2]), match[2].splitlines())
            for match in BLOCK.finditer(page)]


def normalise(text: str) -> str:
    text = re.sub(r"\(\d+(\.\d+)? s\)", "(N s)", text)
    text = re.sub(r" in \d+(\.\d+)?s\b", " in Ns", text)
    text = re.sub(r"(Python|pytest|pluggy)[- ]\d[\w.]*", r"\1-X", text)
    text = re.sub(r"^plugins: .*$", "plugins: ...", text, flags=re.MULTILINE)
    text = re.sub(r"^=+ (.*?) =+$", r"== \1 ==", text, flags=re.MULTILINE)  # pytest's rules
    text = re.sub(r"(server process )\[\d+\]", r"\1[N]", text)  # uvicorn's pid
    text = re.sub(r"\b(\d+(?:\.\d+){3}):\d+ - \"", r'\1:N - "', text)  # client ports
    return text.rstrip("\n")


class Shell:
    """Runs the page's commands one after another, remembering the folder."""

    def __init__(self, root: Path, env: dict[str, str]) -> None:
        self.root, self.cwd, self.env = root, root, env
        self.ports: dict[str, str] = {}  # the page's port -> the one really served on

    def command(self, text: str) -> str:
        """The page's command as it runs here: the real port for the page's."""
        for page, real in self.ports.items():
            text = re.sub(rf"\b{page}\b", real, text)
        return text

    def shown(self, output: str) -> str:
        """An output as the page writes it: `/tmp/walk`, the page's port."""
        shown = output.replace(str(self.root), WALK).replace(str(REPO), f"{WALK}/eve-build")
        for page, real in self.ports.items():
            shown = re.sub(rf"\b{real}\b", page, shown)
        return shown

    def run(self, command: str) -> tuple[str, int]:
        marker = "__eve_walk_cwd__"
        script = (f"{self.command(command)}\n__status=$?\n"
                  f"echo; echo {marker}\"$PWD\"; exit $__status\n")
        done = subprocess.run(["bash", "-c", script], cwd=self.cwd, env=self.env, text=True,
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=TIMEOUT, check=False)
        output, _, where = done.stdout.rpartition(marker)
        self.cwd = Path(where.strip())
        return self.shown(output.removesuffix("\n")), done.returncode


class Background:
    """The first terminal: a command started in a process group of its own, its stdout
    and stderr in files, ended with Ctrl-C (SIGINT to the group)."""

    def __init__(self, shell: Shell, command: Command, folder: Path) -> None:
        self.shell, self.page_port = shell, None
        text = command.text
        if port := PORT.search(text):  # served on a free port: see the module docstring
            self.page_port = port[1]
            text = text[:port.start(1)] + "0" + text[port.end(1):]
        folder.mkdir()
        self.out, self.err = folder / "stdout", folder / "stderr"
        with self.out.open("wb") as out, self.err.open("wb") as err:
            self.process = subprocess.Popen(
                ["bash", "-c", shell.command(text)], cwd=shell.cwd, env=shell.env,
                stdin=subprocess.DEVNULL, stdout=out, stderr=err, start_new_session=True)

    def wait_for_lines(self, count: int) -> None:
        """Until stdout has `count` complete lines; then the port it serves on is known."""
        def ready() -> bool:
            return (len(self._lines()) >= count) or self.process.poll() is not None

        wait_until(ready, f"{count} line(s) on the stdout of the background command",
                   timeout=TIMEOUT)
        if self.process.poll() is not None:
            raise AssertionError(f"the background command ended (exit {self.process.returncode})"
                                 f":\n{self.out.read_text()}{self.err.read_text()}")
        if self.page_port is not None:
            found = URL_PORT.search(self.out.read_text(encoding="utf-8"))
            assert found, f"no URL with a port on the background command's stdout: {self._lines()}"
            self.shell.ports[self.page_port] = found[1]

    def _lines(self) -> list[str]:
        text = self.out.read_text(encoding="utf-8")
        return text.splitlines()[:text.count("\n")]

    def stop(self) -> tuple[str, str, int]:
        """Ctrl-C: SIGINT to the group, then its stdout, stderr (as the page shows them)
        and exit code; killed when it has not ended within the deadline."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGINT)
            try:
                self.process.wait(timeout=DEADLINE)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=DEADLINE)
        return (self.shell.shown(self.out.read_text(encoding="utf-8").removesuffix("\n")),
                self.shell.shown(self.err.read_text(encoding="utf-8").removesuffix("\n")),
                self.process.returncode)


def _shown(output: str, status: int, expected: list[str]) -> list[str]:
    """The output as the page writes it: `exit N` after it when the page shows one there
    or the command failed."""
    lines = output.splitlines() if output else []
    if (expected and EXIT.match(expected[-1])) or status != 0:
        lines.append(f"exit {status}")
    return lines


def _site_packages(prefix: Path) -> Path:
    return Path(sysconfig.get_path("purelib", vars={"base": str(prefix),
                                                     "platbase": str(prefix)}))


def make_layered_venv(venv: Path) -> Path:
    """A venv whose installs land in it, seeing this venv's packages beneath (eve-build,
    pip, the extras); its `eve` is this venv's console script on its own interpreter."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True,
                   timeout=TIMEOUT)
    ours = sysconfig.get_path("purelib")
    (_site_packages(venv) / "_eve_walk_layer.pth").write_text(
        f"import site; site.addsitedir({ours!r})\n", encoding="utf-8")
    script = (Path(sys.executable).parent / "eve").read_text(encoding="utf-8")
    eve = venv / "bin" / "eve"
    eve.write_text(f"#!{venv / 'bin' / 'python'}\n{script.partition(chr(10))[2]}",
                   encoding="utf-8")
    eve.chmod(0o755)
    return venv


def write_index_wheels(folder: Path) -> Path:
    """The distributions of INDEX and what they require, re-packed from this venv."""
    folder.mkdir()
    found: dict[str, metadata.Distribution] = {}
    for name in INDEX:
        closure = find_requirement_closure(name)
        assert closure is not None, f"{name}'s requirements are not all installed here"
        found.update((dist.metadata["Name"], dist)
                     for dist in [metadata.distribution(name), *closure])
    for name, dist in sorted(found.items()):
        assert write_distribution_wheel(folder, dist) is not None, f"{name} cannot be re-packed"
    return folder


def write_curl(folder: Path) -> Path:
    """A stand-in for `curl -s URL` (a GET, the body on stdout) on a machine without curl."""
    folder.mkdir()
    curl = folder / "curl"
    curl.write_text(f"#!{sys.executable}\nimport sys, urllib.request\n"
                    "with urllib.request.urlopen(sys.argv[-1], timeout=60) as answer:\n"
                    "    sys.stdout.write(answer.read().decode())\n", encoding="utf-8")
    curl.chmod(0o755)
    return folder


@dataclass
class Walk:
    shell: Shell
    venv: Path  # the clone's `.venv`, where `eve add` installs
    folder: Path


@pytest.fixture
def walk(tmp_path: Path) -> Walk:
    """`/tmp/walk` with the clone in `eve-build/` (its fixtures, and `.venv` standing for
    the venv section 1 makes: layered on this checkout's, see the module docstring)."""
    root = tmp_path / "walk"
    clone = root / "eve-build"
    clone.mkdir(parents=True)
    copy_fixture_tree(FIXTURES, clone / "fixtures")
    venv = make_layered_venv(clone / ".venv")
    wheels = write_index_wheels(tmp_path / "wheels")
    (tmp_path / "home").mkdir()
    # The page's machine: the clone's `.venv/bin` on PATH (section 2), and no `uv`.
    path = [str(venv / "bin"), *(entry for entry in os.environ.get("PATH", "").split(os.pathsep)
                                 if entry and not (Path(entry) / "uv").exists())]
    if shutil.which("curl", path=os.pathsep.join(path)) is None:
        path.append(str(write_curl(tmp_path / "tools")))
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTEST_VERSION", "PYTEST_XDIST_WORKER")
           and not k.startswith("PIP_")}
    env.update({"NO_COLOR": "1", "EVE_HOME": str(tmp_path / "eve-home"), "COLUMNS": "80",
                "HOME": str(tmp_path / "home"), "PATH": os.pathsep.join(path),
                "PIP_CONFIG_FILE": os.devnull, "PIP_NO_INDEX": "1",
                "PIP_FIND_LINKS": str(wheels), "PIP_DISABLE_PIP_VERSION_CHECK": "1"})
    shell = Shell(root, env)
    shell.cwd = clone
    return Walk(shell, venv, tmp_path)


def test_the_page_marks_its_runnable_blocks() -> None:
    blocks = read_blocks(PAGE.read_text(encoding="utf-8"))
    assert len(blocks) >= 3
    assert all(block.commands for block in blocks if block.kind != "log")
    kinds = [block.kind for block in blocks]
    assert kinds.count("background") == kinds.count("log") == 1
    assert kinds.index("background") < kinds.index("log")
    assert len(blocks[kinds.index("background")].commands) == 1


def test_a_here_document_is_one_command_with_its_lines() -> None:
    commands = read_commands("$ cat > a.py <<'EOF'\nprint(1)\n$ not a command\nEOF\n"
                             "$ python a.py\n1\n")
    assert [c.text for c in commands] == ["cat > a.py <<'EOF'\nprint(1)\n$ not a command\nEOF",
                                          "python a.py"]
    assert [c.expected for c in commands] == [[], ["1"]]


def test_the_served_port_is_the_pages_port_on_the_page() -> None:
    shell = Shell(Path("/nowhere"), {})
    shell.ports["8765"] = "40123"
    assert (shell.command("curl -s http://127.0.0.1:8765/.eve/health")
            == "curl -s http://127.0.0.1:40123/.eve/health")
    assert (shell.shown("serving on http://127.0.0.1:40123 (Ctrl-C to stop)")
            == "serving on http://127.0.0.1:8765 (Ctrl-C to stop)")


def test_process_ids_and_client_ports_are_not_compared() -> None:
    one = 'INFO: Started server process [17445]\nINFO: 127.0.0.1:60818 - "GET / HTTP/1.1" 200'
    other = 'INFO: Started server process [9171]\nINFO: 127.0.0.1:37320 - "GET / HTTP/1.1" 200'
    assert normalise(one) == normalise(other)
    assert normalise(one) != normalise(other.replace("GET / ", "GET /x "))
    assert normalise("http://127.0.0.1:8765/mcp") != normalise("http://127.0.0.1:8766/mcp")


def _installed_wx_alerts(site_packages: Path) -> list[str]:
    return sorted(p.name for p in site_packages.iterdir()
                  if re.search(r"(?i)wx[_-]alerts", p.name))


def test_the_walkthrough_prints_what_the_page_shows(walk: Walk, update_golden: bool) -> None:
    page = PAGE.read_text(encoding="utf-8")
    shell = walk.shell
    differences: list[str] = []
    rewritten: list[tuple[re.Match[str], str]] = []
    ours = Path(sysconfig.get_path("purelib"))
    before = _installed_wx_alerts(ours)

    def compare(what: str, actual: list[str], expected: list[str]) -> None:
        if normalise("\n".join(actual)) != normalise("\n".join(expected)):
            differences.append(f"{what}\n--- the page shows:\n" + "\n".join(expected)
                               + "\n--- it printed:\n" + "\n".join(actual))

    def fence(kind: str, lines: list[str]) -> str:
        return f"```console walk{' ' + kind if kind else ''}\n" + "\n".join(lines) + "\n```\n"

    background: tuple[Block, Background] | None = None
    try:
        for block in read_blocks(page):
            if block.kind == "background":
                assert background is None, "a second background block before a log block"
                (command,) = block.commands
                started = Background(shell, command, walk.folder / "background")
                background = (block, started)
                started.wait_for_lines(max(1, len(command.expected)))
                continue
            if block.kind == "log":
                assert background is not None, "a log block with no background block before it"
                (started_block, started), background = background, None
                (command,) = started_block.commands
                out, err, status = started.stop()
                printed = out.splitlines() if out else []
                compare(f"$ {command.text} (its stdout)", printed, command.expected)
                rewritten.append((started_block.match,
                                  fence("background", [f"$ {command.text}", *printed])))
                logged = _shown(err, status, block.lines)
                compare(f"$ {command.text} (its stderr after Ctrl-C)", logged, block.lines)
                rewritten.append((block.match, fence("log", logged)))
                continue
            lines: list[str] = []
            for command in block.commands:
                output, status = shell.run(command.text)
                actual = _shown(output, status, command.expected)
                lines += [f"$ {command.text}", *actual]
                compare(f"$ {command.text}", actual, command.expected)
            rewritten.append((block.match, fence("", lines)))
        assert background is None, "a background block with no log block after it"
    finally:
        if background is not None:
            background[1].stop()
    # `eve add` installed into the walk's venv, never into the test's
    assert _installed_wx_alerts(ours) == before == []
    assert _installed_wx_alerts(_site_packages(walk.venv))
    if update_golden:
        for match, text in sorted(rewritten, key=lambda item: item[0].start(), reverse=True):
            page = page[:match.start()] + text + page[match.end():]
        PAGE.write_text(page, encoding="utf-8")
        return
    assert not differences, ("docs/walkthrough.md drifted (rewrite it with "
                             "`pytest tests/test_walkthrough.py --update-golden`):\n\n"
                             + "\n\n".join(differences))
