"""A local command whose exception cannot even be printed is an error reply, not an internal
error (issue 23, item 22): a real `eve command` process with `-e`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.reliability.agents import make_misbehaving_agent, run_eve

EXTENSION = '''\
from eve_build.sdk import Spec, define_command


class Weird(Exception):
    def __str__(self):
        raise RuntimeError("no message for you")


def run(args, ctx):
    raise Weird()


def setup(ctx):
    return Spec(commands={"weird": define_command(description="Raises.", run=run)})
'''


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_misbehaving_agent(tmp_path_factory.mktemp("commands") / "app")


def test_a_command_whose_exception_str_raises_is_an_error_reply(app: Path, tmp_path: Path) -> None:
    extension = tmp_path / "weirdness.py"
    extension.write_text(EXTENSION)
    plain = run_eve("command", "weird", "--path", str(app), "-e", str(extension), cwd=tmp_path)
    as_json = run_eve("command", "weird", "--path", str(app), "-e", str(extension), "--json",
                      cwd=tmp_path)

    reason = "Weird (its message cannot be shown: its __str__ raised)"
    assert plain.returncode == as_json.returncode == 1
    assert f"error: the command `weird` of `weirdness` failed: {reason}" in plain.stderr.decode()
    payload = json.loads(as_json.stdout)
    assert payload["status"] == "failed" and payload["error"]["message"] == reason
    for done in (plain, as_json):
        assert b"internal/unexpected" not in done.stderr
        assert b"Traceback" not in done.stderr
